#!/usr/bin/python3
"""Generates the zoo's transformers, written in torch at real size with seeded random weights (std 0.02) and
exported by torch 1.13 at opsets 13 and 17 with dynamic batch and sequence axes:
- bert_base: a BERT-base-shaped encoder (12 layers x 768, 12 heads, FFN 3072, exact GELU, post-LN, token +
  position embeddings and an embedding LayerNorm, vocab 30522, padding mask added to the attention scores as
  (1 - mask) * -10000); inputs input_ids int64 and attention_mask int64 [batch, 128]; output
  last_hidden_state. Token ids are Zipf-distributed, lengths 16-128 with [CLS]/[SEP] and padding.
- gpt2_small: a GPT-2-small-shaped decoder (12 x 768, 12 heads, pre-LN, fused QKV projection split in three,
  causal mask sliced from a 1024 x 1024 buffer and applied with Where, tanh GELU, learned positions, final LN,
  LM head tied to the token embedding, full vocab 50257); input input_ids int64 [batch, 128]; output logits.
One folder per (model, opset): <name>_op<opset>/ with model.onnx, calib/, eval/, ref/ (torch), meta.json.
    /usr/bin/python3 scripts/zoo/gen_transformers.py [--models bert_base,gpt2_small] [--opsets 13,17] [--force]"""
import argparse
import collections
import math
import os
import shutil
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

SEQ = 128


class BertLayer(nn.Module):
    def __init__(self, d, h, ff):
        super().__init__()
        self.h, self.dh = h, d // h
        self.query, self.key, self.value = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.attn_out = nn.Linear(d, d)
        self.attn_ln = nn.LayerNorm(d, eps=1e-12)
        self.inter = nn.Linear(d, ff)
        self.out = nn.Linear(ff, d)
        self.out_ln = nn.LayerNorm(d, eps=1e-12)

    def heads(self, x):
        return x.view(x.size()[:-1] + (self.h, self.dh)).permute(0, 2, 1, 3)

    def forward(self, x, mask_add):
        q, k, v = self.heads(self.query(x)), self.heads(self.key(x)), self.heads(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh) + mask_add
        p = F.softmax(scores, dim=-1)
        ctx = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.h * self.dh,))
        x = self.attn_ln(x + self.attn_out(ctx))
        return self.out_ln(x + self.out(F.gelu(self.inter(x))))


class BertEncoder(nn.Module):
    def __init__(self, vocab=30522, max_pos=512, d=768, h=12, ff=3072, layers=12):
        super().__init__()
        self.word = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(max_pos, d)
        self.emb_ln = nn.LayerNorm(d, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(d, h, ff) for _ in range(layers)])
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0), persistent=False)

    def forward(self, input_ids, attention_mask):
        t = input_ids.size(1)
        x = self.emb_ln(self.word(input_ids) + self.pos(self.position_ids[:, :t]))
        mask_add = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * -10000.0
        for layer in self.layers:
            x = layer(x, mask_add)
        return x


class GPT2Block(nn.Module):
    def __init__(self, d, h, max_pos):
        super().__init__()
        self.h, self.dh, self.d = h, d // h, d
        self.ln_1 = nn.LayerNorm(d, eps=1e-5)
        self.c_attn = nn.Linear(d, 3 * d)
        self.c_proj = nn.Linear(d, d)
        self.ln_2 = nn.LayerNorm(d, eps=1e-5)
        self.c_fc = nn.Linear(d, 4 * d)
        self.mlp_proj = nn.Linear(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(max_pos, max_pos, dtype=torch.bool)).view(1, 1, max_pos, max_pos),
                             persistent=False)

    def heads(self, x):
        return x.view(x.size()[:-1] + (self.h, self.dh)).permute(0, 2, 1, 3)

    def forward(self, x):
        a = self.ln_1(x)
        q, k, v = self.c_attn(a).split(self.d, dim=2)
        q, k, v = self.heads(q), self.heads(k), self.heads(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.dh)
        t = q.size(-2)
        causal = self.bias[:, :, :t, :t]
        w = torch.where(causal, w, torch.tensor(-10000.0, dtype=w.dtype))
        p = F.softmax(w, dim=-1)
        ctx = torch.matmul(p, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.d,))
        x = x + self.c_proj(ctx)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    def __init__(self, vocab=50257, max_pos=1024, d=768, h=12, layers=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, d)
        self.wpe = nn.Embedding(max_pos, d)
        self.blocks = nn.ModuleList([GPT2Block(d, h, max_pos) for _ in range(layers)])
        self.ln_f = nn.LayerNorm(d, eps=1e-5)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.wte.weight  # tied
        self.register_buffer("position_ids", torch.arange(max_pos).unsqueeze(0), persistent=False)

    def forward(self, input_ids):
        t = input_ids.size(1)
        x = self.wte(input_ids) + self.wpe(self.position_ids[:, :t])
        for b in self.blocks:
            x = b(x)
        return self.lm_head(self.ln_f(x))


def init_weights(model, std=0.02, proj_names=(), n_layers=12):
    """Random init as BERT/GPT-2 do: normal(0, 0.02) for Linear and Embedding, zero biases, LN (1, 0); GPT-2's
    residual projections get std 0.02 / sqrt(2 * layers). The biases get a small random part too (trained
    networks' biases are not zero)."""
    for name, m in model.named_modules():
        if isinstance(m, nn.Linear):
            s = std / math.sqrt(2 * n_layers) if name.split(".")[-1] in proj_names else std
            nn.init.normal_(m.weight, 0.0, s)
            if m.bias is not None:
                nn.init.normal_(m.bias, 0.0, std)
        elif isinstance(m, nn.Embedding):
            nn.init.normal_(m.weight, 0.0, std)
        elif isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, 1.0, 0.05)
            nn.init.normal_(m.bias, 0.0, 0.02)


def zipf_ids(rng, shape, vocab, reserved, a=1.15):
    """Token ids with Zipf-distributed ranks mapped through a fixed permutation of the non-reserved ids."""
    perm = np.random.default_rng(7).permutation(np.setdiff1d(np.arange(vocab), np.array(reserved, np.int64)))
    ranks = rng.zipf(a, size=shape) - 1
    ranks = np.where(ranks >= len(perm), rng.integers(0, len(perm), size=shape), ranks)
    return perm[ranks].astype(np.int64)


def bert_samples(rng, n, seq=SEQ, vocab=30522):
    """[CLS] tokens [SEP] then [PAD] (id 0); lengths 16..seq; attention_mask 1 on real tokens."""
    ids = np.zeros((n, seq), np.int64)
    mask = np.zeros((n, seq), np.int64)
    body = zipf_ids(rng, (n, seq), vocab, reserved=list(range(0, 999)))
    for i in range(n):
        length = int(rng.integers(16, seq + 1))
        ids[i, 0] = 101
        ids[i, 1:length - 1] = body[i, :length - 2]
        ids[i, length - 1] = 102
        mask[i, :length] = 1
    return {"input_ids": ids, "attention_mask": mask}


def gpt2_samples(rng, n, seq=SEQ, vocab=50257):
    return {"input_ids": zipf_ids(rng, (n, seq), vocab, reserved=[50256])}


SPECS = {
    "bert_base": dict(build=lambda: BertEncoder(), proj=(), samples=bert_samples, out="last_hidden_state",
                      task="encoder", vocab=30522, seed=2001, params="12 layers x 768, 12 heads, FFN 3072, vocab 30522, 512 positions"),
    "gpt2_small": dict(build=lambda: GPT2(), proj=("c_proj", "mlp_proj"), samples=gpt2_samples, out="logits",
                       task="language_model", vocab=50257, seed=2002,
                       params="12 layers x 768, 12 heads, FFN 3072, vocab 50257 (full), 1024 positions, tied LM head"),
}


def forward_ref(model, feeds, bs=4):
    outs = []
    n = len(next(iter(feeds.values())))
    with torch.no_grad():
        for i in range(0, n, bs):
            outs.append(model(*[torch.from_numpy(v[i:i + bs]) for v in feeds.values()]).numpy())
    return np.concatenate(outs)


def make(name, opsets, n_calib, n_eval, force):
    import onnx
    spec = SPECS[name]
    folders = {op: common.model_dir(f"{name}_op{op}") for op in opsets}
    todo = [op for op, f in folders.items() if force or not common.is_complete(f)]
    if not todo:
        common.log(f"{name}: cached")
        return
    torch.set_num_threads(2)
    torch.manual_seed(spec["seed"])
    model = spec["build"]()
    init_weights(model, proj_names=spec["proj"])
    model.eval()
    rng_c, rng_e = np.random.default_rng(spec["seed"] * 10), np.random.default_rng(spec["seed"] * 10 + 1)
    calib = spec["samples"](rng_c, n_calib)
    evalx = spec["samples"](rng_e, n_eval)
    common.log(f"{name}: torch reference on {n_eval} eval sequences")
    ref = forward_ref(model, evalx)
    names = list(evalx.keys())
    for op in todo:
        folder = folders[op]
        common.fresh(folder)
        path = os.path.join(folder, "model.onnx")
        common.log(f"{name}: exporting opset {op}")
        dyn = {k: {0: "batch", 1: "sequence"} for k in names}
        dyn[spec["out"]] = {0: "batch", 1: "sequence"}
        torch.onnx.export(model, tuple(torch.from_numpy(v[:2]) for v in evalx.values()), path, input_names=names,
                          output_names=[spec["out"]], dynamic_axes=dyn, opset_version=op, do_constant_folding=True)
        common.write_split(os.path.join(folder, "calib"), calib)
        common.write_split(os.path.join(folder, "eval"), evalx)
        common.write_split(os.path.join(folder, "ref"), {spec["out"]: ref})
        m = onnx.load(path, load_external_data=False)
        ops = collections.Counter(n.op_type for n in m.graph.node)
        common.log(f"{name}: checking opset {op} in ONNX Runtime")
        chk = os.path.join(folder, ".ort_check")
        common.ort_run(path, os.path.join(folder, "eval"), chk, threads=2)
        got = np.load(os.path.join(chk, spec["out"] + ".npy"))
        ort_err = float(np.abs(got - ref).max())
        del got
        shutil.rmtree(chk, ignore_errors=True)
        meta = {
            "name": f"{name}_op{op}", "family": "transformer", "source": "scripts/zoo/gen_transformers.py (torch)",
            "architecture": spec["params"], "task": spec["task"], "opset": op,
            "weights": f"random, torch.manual_seed({spec['seed']}), normal std 0.02 (GPT-2 residual projections "
                       f"0.02/sqrt(24)), biases normal std 0.02, LayerNorm gamma N(1, 0.05)",
            "exporter": f"torch {torch.__version__} torch.onnx.export", "input_names": names,
            "output_names": [spec["out"]], "dynamic_axes": ["batch", "sequence"],
            "inputs_made": "Zipf(1.15)-distributed token ids through a fixed permutation of the vocabulary" + (
                "; lengths 16-128 with [CLS]=101 ... [SEP]=102 then [PAD]=0, attention_mask 1 on real tokens"
                if name == "bert_base" else "; 128 tokens per sequence, no padding"),
            "vocab": spec["vocab"], "seq_len": SEQ,
            "calib": common.split_info(calib), "eval": common.split_info(evalx), "ref": "torch eval mode on eval/",
            "ref_stats": {"ref_std": float(ref.std()), "ref_mean_abs": float(np.abs(ref).mean())},
            "ort_vs_torch_max_abs": ort_err, "op_counts": dict(sorted(ops.items())),
            "model_bytes": common.model_bytes(path),
        }
        if name == "bert_base":
            meta["eval_mask"] = "eval/attention_mask.npy; ref/ and the metrics cover all positions, padded ones included"
        common.write_meta(folder, meta)
        common.log(f"{name}_op{op}: done, {meta['model_bytes'] / 1e6:.1f} MB, ORT vs torch max abs {ort_err:.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="bert_base,gpt2_small")
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--calib", type=int, default=32)
    ap.add_argument("--eval", type=int, default=32)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    failed = []
    for name in a.models.split(","):
        if name not in SPECS:
            sys.exit(f"unknown model {name}; known: {', '.join(SPECS)}")
        try:
            make(name, [int(o) for o in a.opsets.split(",")], a.calib, a.eval, a.force)
        except Exception as e:
            import traceback
            traceback.print_exc()
            failed.append(f"{name}: {e}")
    if failed:
        sys.exit("failed: " + "; ".join(failed))


if __name__ == "__main__":
    common.main_guard(main)
