#!/usr/bin/python3
"""Writes the PyTorch-made test fixtures under tests/data/: digits_vit (a small ViT trained on sklearn's
digits, exported at opsets 13 and 17), digits_cnn (a small CNN on the same digits, opset 13) and
bert_encoder (a BERT-shaped nn.TransformerEncoder with seeded random weights, opset 14).

Each fixture folder holds the model(s), calib/ and eval/ folders of <input_name>.npy (first axis counts
samples), reference/<output_name>.npy (torch's float32 outputs on eval/, model in eval mode),
eval_labels.npy (digits only) and info.json.

Deterministic: fixed seeds, single thread, deterministic algorithms; re-running reproduces the same files.
Every exported model is also run by a small NumPy ONNX evaluator (below) and compared with torch, so the
references are known to be the exported graph's math. Run with Debian's /usr/bin/python3 (python3-torch,
python3-sklearn, python3-onnx).
"""
import hashlib
import json
import math
import os
import shutil
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
from onnx import numpy_helper
from sklearn.datasets import load_digits

torch.set_num_threads(1)
torch.use_deterministic_algorithms(True)

DATA = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data"))

N_CALIB = 64
N_EVAL_DIGITS = 128
N_EVAL_BERT = 32


def seed_all(seed):
    torch.manual_seed(seed)
    np.random.seed(seed)


# ----------------------------------------------------------------------------------------------------
# Data

def digits_splits():
    """Digits scaled to [0, 1] as [N, 1, 8, 8] float32. A fixed permutation splits them into a training
    set, calibration samples (taken from the training set) and a held-out test set whose first
    N_EVAL_DIGITS samples are the eval split."""
    d = load_digits()
    x = (d.images.astype(np.float32) / 16.0).reshape(-1, 1, 8, 8)
    y = d.target.astype(np.int64)
    perm = np.random.default_rng(1234).permutation(len(y))
    x, y = x[perm], y[perm]
    n_test = 360
    test_x, test_y = x[:n_test], y[:n_test]
    train_x, train_y = x[n_test:], y[n_test:]
    return {
        "train": (train_x, train_y),
        "test": (test_x, test_y),
        "calib": train_x[:N_CALIB],
        "eval": (test_x[:N_EVAL_DIGITS], test_y[:N_EVAL_DIGITS]),
    }


# ----------------------------------------------------------------------------------------------------
# Models

class Attention(nn.Module):
    """Multi-head self-attention written by hand: fused QKV Linear, split into heads, scaled dot
    product, softmax, weighted sum of V, merged heads, output Linear."""

    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.head_dim = dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, self.head_dim).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]                      # [b, heads, n, head_dim]
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.head_dim)
        attn = scores.softmax(dim=-1)
        ctx = (attn @ v).transpose(1, 2).reshape(b, n, c)      # merge heads
        return self.proj(ctx)


class Block(nn.Module):
    def __init__(self, dim, heads, mlp_dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, mlp_dim)
        self.fc2 = nn.Linear(mlp_dim, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))   # exact (erf) GELU


class DigitsViT(nn.Module):
    def __init__(self, dim=64, heads=4, depth=2, mlp_dim=128, patch=2, classes=10):
        super().__init__()
        n_patches = (8 // patch) ** 2
        self.patch_embed = nn.Conv2d(1, dim, kernel_size=patch, stride=patch)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos_embed = nn.Parameter(torch.randn(1, n_patches + 1, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads, mlp_dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, pixel_values):
        x = self.patch_embed(pixel_values).flatten(2).transpose(1, 2)   # [b, 16, dim]
        cls = self.cls_token.expand(x.shape[0], -1, -1)
        x = torch.cat([cls, x], dim=1) + self.pos_embed
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.norm(x)[:, 0])


class DigitsCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.fc1 = nn.Linear(32 * 4 * 4, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, images):
        x = F.relu(self.bn1(self.conv1(images)))
        x = F.relu(self.bn2(self.conv2(x)))
        x = F.max_pool2d(x, 2)
        x = torch.flatten(x, 1)
        return self.fc2(F.relu(self.fc1(x)))


class ExactGELU(nn.Module):
    """GELU with erf. Deliberately not nn.GELU / "gelu": TransformerEncoderLayer then never takes its
    fused inference fast path, so eager torch computes exactly the math the ONNX export traces."""

    def forward(self, x):
        return F.gelu(x)


class BertEncoder(nn.Module):
    def __init__(self, vocab=1000, max_len=64, dim=64, heads=4, ff=128, layers=2):
        super().__init__()
        self.tok = nn.Embedding(vocab, dim)
        self.pos = nn.Embedding(max_len, dim)
        self.emb_norm = nn.LayerNorm(dim, eps=1e-12)
        self.register_buffer("position_ids", torch.arange(max_len).unsqueeze(0), persistent=False)
        layer = nn.TransformerEncoderLayer(dim, heads, dim_feedforward=ff, dropout=0.0, activation=ExactGELU(),
                                           batch_first=True, norm_first=False)
        self.encoder = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)

    def randomize(self, seed):
        """Seeded random weights for every parameter: TransformerEncoder deep-copies one layer (so its
        layers start identical) and LayerNorm and bias start at 1 and 0; random values make every layer
        and every bias and norm parameter distinct and non-trivial."""
        g = torch.Generator().manual_seed(seed)
        with torch.no_grad():
            for name, p in self.named_parameters():
                noise = torch.randn(p.shape, generator=g)
                if "norm" in name and name.endswith("weight"):
                    p.copy_(1.0 + 0.1 * noise)
                elif p.dim() == 1:
                    p.copy_(0.1 * noise)
                elif name in ("tok.weight", "pos.weight"):
                    p.copy_(noise)
                else:
                    p.copy_(noise / math.sqrt(p.shape[1]))
        return self

    def forward(self, input_ids, attention_mask):
        pos = self.position_ids[:, : input_ids.shape[1]]
        x = self.emb_norm(self.tok(input_ids) + self.pos(pos))
        return self.encoder(x, src_key_padding_mask=attention_mask == 0)


# ----------------------------------------------------------------------------------------------------
# Training and export

def train_classifier(model, train, epochs, lr, batch=64, weight_decay=0.0, seed=0):
    x, y = torch.from_numpy(train[0]), torch.from_numpy(train[1])
    g = torch.Generator().manual_seed(seed)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps)
    model.train()
    for _ in range(epochs):
        perm = torch.randperm(len(y), generator=g)
        for i in range(0, len(y), batch):
            idx = perm[i:i + batch]
            loss = F.cross_entropy(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    model.eval()


def predict(model, x):
    with torch.no_grad():
        return model(torch.from_numpy(x)).numpy()


def export(model, args, path, input_names, output_names, dynamic_axes, opset):
    model.eval()
    # Traced with autograd on, like the references: nn.MultiheadAttention takes a fused fast path under
    # no_grad in eval mode, which is not the math the exporter writes.
    with torch.enable_grad():
        torch.onnx.export(model, args, path, input_names=input_names, output_names=output_names,
                          dynamic_axes=dynamic_axes, opset_version=opset, do_constant_folding=True)
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    # Keep the bytes reproducible and free of local paths.
    m.producer_version = torch.__version__
    m.doc_string = ""
    for node in m.graph.node:
        node.doc_string = ""
    onnx.save(m, path)
    return m


def write_split(folder, arrays):
    os.makedirs(folder, exist_ok=True)
    for name, arr in arrays.items():
        np.save(os.path.join(folder, name + ".npy"), np.ascontiguousarray(arr))


def write_info(folder, info):
    with open(os.path.join(folder, "info.json"), "w") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


# ----------------------------------------------------------------------------------------------------
# A small NumPy ONNX evaluator for the ops these exports use (onnx.reference is not in Debian 12's onnx).

def _erf(x):
    return np.vectorize(math.erf, otypes=[np.float64])(x.astype(np.float64)).astype(x.dtype)


def _conv(x, w, b, pads, strides):
    n, c, h, wd = x.shape
    m, _, kh, kw = w.shape
    x = np.pad(x, ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    oh = (x.shape[2] - kh) // strides[0] + 1
    ow = (x.shape[3] - kw) // strides[1] + 1
    cols = np.empty((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = x[:, :, i:i + strides[0] * oh:strides[0], j:j + strides[1] * ow:strides[1]]
    y = np.einsum("nckhij,mckh->nmij", cols.astype(np.float64), w.astype(np.float64))
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y.astype(np.float32)


def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def run_onnx_numpy(model, feeds):
    """Evaluates the graph in NumPy (float math in float64 where it is a reduction). Returns the outputs."""
    env = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    env.update(feeds)
    for node in model.graph.node:
        a = _attrs(node)
        x = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Constant":
            y = numpy_helper.to_array(a["value"])
        elif op == "Div" and np.issubdtype(x[0].dtype, np.integer):
            y = (np.abs(x[0]) // np.abs(x[1]) * np.sign(x[0]) * np.sign(x[1])).astype(x[0].dtype)  # truncates
        elif op in ("Add", "Sub", "Mul", "Div", "Pow", "Equal", "Where"):
            f = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide, "Pow": np.power,
                 "Equal": np.equal}
            y = np.where(x[0], x[1], x[2]) if op == "Where" else f[op](x[0], x[1])
            if op == "Pow":
                y = y.astype(x[0].dtype)
        elif op in ("Sqrt", "Erf", "Relu", "Neg", "Not", "Identity"):
            f = {"Sqrt": np.sqrt, "Erf": _erf, "Relu": lambda t: np.maximum(t, 0).astype(t.dtype),
                 "Neg": np.negative, "Not": np.logical_not, "Identity": lambda t: t}
            y = f[op](x[0])
        elif op == "Cast":
            y = x[0].astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[a["to"]])
        elif op == "MatMul":
            y = np.matmul(x[0].astype(np.float64), x[1].astype(np.float64)).astype(np.float32)
        elif op == "Gemm":
            a_ = x[0].T if a.get("transA", 0) else x[0]
            b_ = x[1].T if a.get("transB", 0) else x[1]
            y = a.get("alpha", 1.0) * (a_.astype(np.float64) @ b_.astype(np.float64))
            if len(x) > 2 and x[2] is not None:
                y = y + a.get("beta", 1.0) * x[2]
            y = y.astype(np.float32)
        elif op == "Conv":
            k = len(x[1].shape) - 2
            y = _conv(x[0], x[1], x[2] if len(x) > 2 else None, a.get("pads", [0] * 2 * k), a.get("strides", [1] * k))
        elif op == "BatchNormalization":
            s, bias, mean, var = (t.reshape(1, -1, 1, 1) for t in x[1:5])
            y = ((x[0] - mean) / np.sqrt(var + a.get("epsilon", 1e-5)) * s + bias).astype(np.float32)
        elif op == "MaxPool":
            k = a["kernel_shape"]
            n, c, h, w = x[0].shape
            y = x[0][:, :, :h // k[0] * k[0], :w // k[1] * k[1]].reshape(n, c, h // k[0], k[0], w // k[1], k[1]).max(axis=(3, 5))
            assert a.get("strides", k) == k and not any(a.get("pads", [])), node
        elif op == "Softmax":
            ax = a.get("axis", -1)
            e = np.exp(x[0] - x[0].max(axis=ax, keepdims=True))
            y = (e / e.sum(axis=ax, keepdims=True)).astype(np.float32)
        elif op == "ReduceMean":
            y = x[0].astype(np.float64).mean(axis=tuple(a["axes"]), keepdims=bool(a.get("keepdims", 1))).astype(np.float32)
        elif op == "LayerNormalization":
            ax = a.get("axis", -1)
            axes = tuple(range(ax % x[0].ndim, x[0].ndim))
            t = x[0].astype(np.float64)
            mu = t.mean(axis=axes, keepdims=True)
            var = ((t - mu) ** 2).mean(axis=axes, keepdims=True)
            y = ((t - mu) / np.sqrt(var + a.get("epsilon", 1e-5)) * x[1] + (x[2] if len(x) > 2 else 0)).astype(np.float32)
        elif op == "Shape":
            y = np.array(x[0].shape, np.int64)
        elif op == "Gather":
            y = np.take(x[0], x[1], axis=a.get("axis", 0))
        elif op == "Unsqueeze":
            axes = [int(v) for v in (x[1] if len(x) > 1 else a["axes"])]
            y = x[0]
            for ax in sorted(v % (x[0].ndim + len(axes)) for v in axes):
                y = np.expand_dims(y, ax)
        elif op == "Squeeze":
            y = np.squeeze(x[0], axis=tuple(int(v) for v in x[1])) if len(x) > 1 else np.squeeze(x[0])
        elif op == "Concat":
            y = np.concatenate(x, axis=a["axis"])
        elif op == "Reshape":
            shape = [x[0].shape[i] if s == 0 else int(s) for i, s in enumerate(x[1])]
            y = x[0].reshape(shape)
        elif op == "Transpose":
            y = np.transpose(x[0], a.get("perm"))
        elif op == "Flatten":
            ax = a.get("axis", 1)
            y = x[0].reshape(int(np.prod(x[0].shape[:ax])), -1)
        elif op == "Expand":
            y = x[0] * np.ones(tuple(int(v) for v in x[1]), x[0].dtype)
        elif op == "ConstantOfShape":
            v = numpy_helper.to_array(a["value"]) if "value" in a else np.zeros(1, np.float32)
            y = np.full(tuple(int(s) for s in x[0]), v.reshape(-1)[0], v.dtype)
        elif op == "Slice":
            starts, ends = x[1], x[2]
            axes = x[3] if len(x) > 3 and x[3] is not None else range(len(starts))
            steps = x[4] if len(x) > 4 and x[4] is not None else [1] * len(starts)
            sl = [slice(None)] * x[0].ndim
            for s, e, ax, st in zip(starts, ends, axes, steps):
                sl[int(ax)] = slice(int(s), int(e), int(st))
            y = x[0][tuple(sl)]
        else:
            raise NotImplementedError("numpy evaluator: op " + op)
        env[node.output[0]] = np.asarray(y)
    return [env[o.name] for o in model.graph.output]


def check_export(model_proto, feeds, reference, what, tol=1e-4):
    """The exported graph evaluated in NumPy must match torch's reference within tol * max(1, |r|)."""
    got = run_onnx_numpy(model_proto, feeds)[0]
    assert got.shape == reference.shape, (what, got.shape, reference.shape)
    err = np.max(np.abs(got - reference) / np.maximum(1.0, np.abs(reference)))
    print(f"  {what}: numpy evaluation of the ONNX graph vs torch: max scaled error {err:.2e}")
    assert err <= tol, what


def op_types(m):
    return sorted({n.op_type for n in m.graph.node})


# ----------------------------------------------------------------------------------------------------
# Fixtures

def make_digits_vit(splits):
    folder = os.path.join(DATA, "digits_vit")
    fresh(folder)
    seed_all(0)
    model = DigitsViT()
    train_classifier(model, splits["train"], epochs=16, lr=3e-3, weight_decay=0.05, seed=0)
    eval_x, eval_y = splits["eval"]
    logits = predict(model, eval_x)
    acc = float((logits.argmax(1) == eval_y).mean())
    test_acc = float((predict(model, splits["test"][0]).argmax(1) == splits["test"][1]).mean())
    print(f"digits_vit: eval accuracy {acc:.4f} ({len(eval_y)} samples), held-out accuracy {test_acc:.4f}")
    assert acc > 0.90, acc
    files = {}
    for opset in (13, 17):
        name = f"digits_vit_opset{opset}.onnx"
        m = export(model, (torch.from_numpy(eval_x[:2]),), os.path.join(folder, name), ["pixel_values"], ["logits"],
                   {"pixel_values": {0: "batch"}, "logits": {0: "batch"}}, opset)
        check_export(m, {"pixel_values": eval_x[:16]}, logits[:16], name)
        files[name] = {"opset": opset, "op_types": op_types(m)}
    write_split(os.path.join(folder, "calib"), {"pixel_values": splits["calib"]})
    write_split(os.path.join(folder, "eval"), {"pixel_values": eval_x})
    write_split(os.path.join(folder, "reference"), {"logits": logits})
    np.save(os.path.join(folder, "eval_labels.npy"), eval_y)
    write_info(folder, {"models": files, "torch_version": torch.__version__, "inputs": ["pixel_values"],
                        "outputs": ["logits"], "eval_accuracy": acc, "eval_samples": len(eval_y),
                        "heldout_accuracy": test_acc})


def make_digits_cnn(splits):
    folder = os.path.join(DATA, "digits_cnn")
    fresh(folder)
    seed_all(1)
    model = DigitsCNN()
    train_classifier(model, splits["train"], epochs=15, lr=3e-3, seed=1)
    eval_x, eval_y = splits["eval"]
    logits = predict(model, eval_x)
    acc = float((logits.argmax(1) == eval_y).mean())
    test_acc = float((predict(model, splits["test"][0]).argmax(1) == splits["test"][1]).mean())
    print(f"digits_cnn: eval accuracy {acc:.4f} ({len(eval_y)} samples), held-out accuracy {test_acc:.4f}")
    assert acc > 0.95, acc
    m = export(model, (torch.from_numpy(eval_x[:2]),), os.path.join(folder, "digits_cnn.onnx"), ["images"], ["logits"],
               {"images": {0: "batch"}, "logits": {0: "batch"}}, 13)
    check_export(m, {"images": eval_x[:16]}, logits[:16], "digits_cnn.onnx")
    write_split(os.path.join(folder, "calib"), {"images": splits["calib"]})
    write_split(os.path.join(folder, "eval"), {"images": eval_x})
    write_split(os.path.join(folder, "reference"), {"logits": logits})
    np.save(os.path.join(folder, "eval_labels.npy"), eval_y)
    write_info(folder, {"models": {"digits_cnn.onnx": {"opset": 13, "op_types": op_types(m)}},
                        "torch_version": torch.__version__, "inputs": ["images"], "outputs": ["logits"],
                        "eval_accuracy": acc, "eval_samples": len(eval_y), "heldout_accuracy": test_acc})


def bert_samples(rng, n, seq=32, vocab=1000):
    """Random token ids; each sample ends with a random number of pads (id 0, mask 0), at least 1 token."""
    ids = rng.integers(1, vocab, size=(n, seq), dtype=np.int64)
    mask = np.ones((n, seq), np.int64)
    for i, pads in enumerate(rng.integers(0, seq - 1, size=n)):
        if pads:
            ids[i, seq - pads:] = 0
            mask[i, seq - pads:] = 0
    return ids, mask


def bert_forward(model, ids, mask):
    """The reference forward: eval mode with autograd ON. Under no_grad, nn.MultiheadAttention (and
    TransformerEncoder with nested tensors) take fused fast paths that ONNX export does not trace; with
    parameters requiring grad, both are ruled out, so torch computes the exported graph's math."""
    assert all(p.requires_grad for p in model.parameters())
    with torch.enable_grad():
        return model(torch.from_numpy(ids), torch.from_numpy(mask)).detach().numpy()


def make_bert_encoder():
    folder = os.path.join(DATA, "bert_encoder")
    fresh(folder)
    seed_all(2)
    model = BertEncoder().randomize(2).eval()
    rng = np.random.default_rng(2)
    calib_ids, calib_mask = bert_samples(rng, N_CALIB)
    eval_ids, eval_mask = bert_samples(rng, N_EVAL_BERT)
    ref = bert_forward(model, eval_ids, eval_mask)
    assert np.isfinite(ref).all()
    m = export(model, (torch.from_numpy(eval_ids[:2]), torch.from_numpy(eval_mask[:2])),
               os.path.join(folder, "bert_encoder.onnx"), ["input_ids", "attention_mask"], ["last_hidden_state"],
               {"input_ids": {0: "batch", 1: "sequence"}, "attention_mask": {0: "batch", 1: "sequence"},
                "last_hidden_state": {0: "batch", 1: "sequence"}}, 14)
    check_export(m, {"input_ids": eval_ids[:8], "attention_mask": eval_mask[:8]}, ref[:8], "bert_encoder.onnx")
    # Dynamic sequence axis: a shorter sequence must also match.
    short = bert_forward(model, eval_ids[:4, :20], eval_mask[:4, :20])
    check_export(m, {"input_ids": eval_ids[:4, :20], "attention_mask": eval_mask[:4, :20]}, short,
                 "bert_encoder.onnx (sequence 20)")
    print(f"bert_encoder: {len(eval_ids)} eval samples, tokens per sample {eval_mask.sum(1).min()}..{eval_mask.sum(1).max()}")
    write_split(os.path.join(folder, "calib"), {"input_ids": calib_ids, "attention_mask": calib_mask})
    write_split(os.path.join(folder, "eval"), {"input_ids": eval_ids, "attention_mask": eval_mask})
    write_split(os.path.join(folder, "reference"), {"last_hidden_state": ref})
    write_info(folder, {"models": {"bert_encoder.onnx": {"opset": 14, "op_types": op_types(m)}},
                        "torch_version": torch.__version__, "inputs": ["input_ids", "attention_mask"],
                        "outputs": ["last_hidden_state"], "eval_samples": len(eval_ids), "sequence_length": 32})


def main():
    splits = digits_splits()
    for make in (lambda: make_digits_vit(splits), lambda: make_digits_cnn(splits), make_bert_encoder):
        t0 = time.process_time()
        make()
        print(f"  ({time.process_time() - t0:.1f} s CPU)")
    for fixture in ("digits_vit", "digits_cnn", "bert_encoder"):
        for root, _, names in sorted(os.walk(os.path.join(DATA, fixture))):
            for n in sorted(names):
                p = os.path.join(root, n)
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()[:16]
                print(f"  {os.path.relpath(p, DATA)}  {os.path.getsize(p)} bytes  sha256:{digest}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
