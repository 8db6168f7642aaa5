#!/usr/bin/python3
"""Generates the torchvision models of the zoo: random weights (seeded), BatchNorm statistics re-estimated in
train mode on natural image crops so activations look like a trained network's, exported by torch 1.13 at
opsets 13 and 17 with a dynamic batch axis. One folder per (model, opset): <name>_op<opset>/ with model.onnx,
calib/, eval/ (input.npy, natural-image crops, ImageNet mean/std), ref/ (torch's outputs on eval/) and meta.json.
    /usr/bin/python3 scripts/zoo/gen_torchvision.py [--models resnet50,...] [--opsets 13,17] [--force]
Idempotent: a folder whose meta.json says complete is skipped."""
import argparse
import collections
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

MODELS = {
    # name: (constructor, input size, task, output name)
    "mobilenet_v2": ("mobilenet_v2", 224, "classification", "logits"),
    "efficientnet_b0": ("efficientnet_b0", 224, "classification", "logits"),
    "regnet_y_800mf": ("regnet_y_800mf", 224, "classification", "logits"),
    "resnet50": ("resnet50", 224, "classification", "logits"),
    "vit_b_16": ("vit_b_16", 224, "classification", "logits"),
    "fcn_resnet50": ("segmentation.fcn_resnet50", 256, "segmentation", "out"),
}
ORDER = ["mobilenet_v2", "efficientnet_b0", "regnet_y_800mf", "resnet50", "vit_b_16", "fcn_resnet50"]


def build(name, seed):
    import torch
    import torchvision
    torch.manual_seed(seed)
    ctor, size, task, _ = MODELS[name]
    if ctor.startswith("segmentation."):
        m = getattr(torchvision.models.segmentation, ctor.split(".", 1)[1])(
            weights=None, weights_backbone=None, num_classes=21, aux_loss=False)
    else:
        m = getattr(torchvision.models, ctor)(weights=None)
    notes = []
    # torchvision zero-initialises some layers (ViT's classifier head); a zeroed final layer makes the output
    # constant, so every all-zero Linear/Conv weight and every all-zero norm gamma is re-initialised.
    for mod_name, mod in m.named_modules():
        if isinstance(mod, (torch.nn.Linear, torch.nn.Conv2d)) and mod.weight is not None \
                and float(mod.weight.detach().abs().max()) == 0.0:
            mod.reset_parameters()
            notes.append(f"re-initialised zero weight of {mod_name} ({type(mod).__name__}, default init)")
        if isinstance(mod, (torch.nn.BatchNorm2d, torch.nn.LayerNorm)) and getattr(mod, "weight", None) is not None \
                and float(mod.weight.detach().abs().max()) == 0.0:
            with torch.no_grad():
                mod.weight.fill_(1.0)
            notes.append(f"set zero gamma of {mod_name} to 1")
    return m, size, task, notes


def wrap_segmentation(model):
    import torch

    class Seg(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(x)["out"]
    return Seg(model)


RESIDUAL_GAMMA = 0.2
HEAD_STD = 3.0


def damp_residual_branches(model, alpha=RESIDUAL_GAMMA):
    """Scales gamma and beta of the last BatchNorm of every residual branch by alpha (before the statistics are
    estimated, so later layers see the damped sums). A random network with BatchNorm statistics fitted to the
    data is chaotic: each layer is renormalised to unit variance, and 40 dB of input noise leaves ~13 dB at
    MobileNetV2's logits, which no trained network does; trained residual networks have small last-BN gammas
    in their branches (the zero_init_residual recipes start them at 0). With alpha = 0.2 the same noise
    leaves ~35 dB. Returns the number of branches damped."""
    import torch
    from torchvision.models import efficientnet, mobilenetv2, regnet, resnet
    n = 0
    for mod in model.modules():
        branch = None
        if isinstance(mod, resnet.Bottleneck):
            branch = mod.bn3
        elif isinstance(mod, resnet.BasicBlock):
            branch = mod.bn2
        elif isinstance(mod, mobilenetv2.InvertedResidual) and mod.use_res_connect:
            branch = mod.conv
        elif isinstance(mod, efficientnet.MBConv) and mod.use_res_connect:
            branch = mod.block
        elif isinstance(mod, regnet.ResBottleneckBlock):
            branch = mod.f
        if branch is None:
            continue
        bns = [b for b in branch.modules() if isinstance(b, torch.nn.BatchNorm2d)] \
            if not isinstance(branch, torch.nn.BatchNorm2d) else [branch]
        with torch.no_grad():
            bns[-1].weight.mul_(alpha)
            bns[-1].bias.mul_(alpha)
        n += 1
    return n


def final_layer(model, task):
    import torch
    if task == "segmentation":
        return model.classifier[-1]
    return [m for m in model.modules() if isinstance(m, torch.nn.Linear)][-1]


def standardise_head(model, layer, size, rng, batches, batch, std=HEAD_STD):
    """Folds a per-class standardisation into the final layer (Linear, or the 1x1 Conv of a segmentation head):
    over natural-image crops every class score gets mean 0 and standard deviation `std`. A random head on
    pooled post-ReLU features otherwise scores one class highest for nearly every input (the features share a
    large positive mean), unlike a trained classifier."""
    import torch
    outs = []
    h = layer.register_forward_hook(lambda m, i, o: outs.append(o.detach()))
    model.eval()
    with torch.no_grad():
        for _ in range(batches):
            model(torch.from_numpy(common.imagenet_batch(rng, batch, size, scale=(0.08, 1.0))))
    h.remove()
    o = torch.cat(outs)
    dims = [0] + list(range(2, o.dim()))
    mean, sd = o.mean(dim=dims), o.std(dim=dims).clamp_min(1e-12)
    with torch.no_grad():
        k = std / sd
        layer.weight.mul_(k.view(-1, *([1] * (layer.weight.dim() - 1))))
        if layer.bias is None:
            layer.bias = torch.nn.Parameter(torch.zeros_like(mean))
        layer.bias.copy_((layer.bias - mean) * k)
    return int(o.shape[0])


def reestimate_bn(model, size, rng, batches, batch):
    """BatchNorm running statistics as the cumulative average over natural-image crops in train mode."""
    import torch
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns:
        return 0
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None
    model.train()
    with torch.no_grad():
        for i in range(batches):
            x = torch.from_numpy(common.imagenet_batch(rng, batch, size, scale=(0.08, 1.0)))
            model(x)
    model.eval()
    return batches * batch


def forward_ref(model, x, bs=8):
    """Eval mode with autograd on (nn.MultiheadAttention's fused no-grad fast path is not what ONNX export
    traces), outputs detached; in batches."""
    import torch
    outs = []
    with torch.enable_grad():
        for i in range(0, len(x), bs):
            outs.append(model(torch.from_numpy(x[i:i + bs])).detach().numpy())
    return np.concatenate(outs)


def export(model, x, path, out_name, opset):
    import torch
    with torch.enable_grad():  # not under no_grad: MultiheadAttention's fast path has no ONNX form
        torch.onnx.export(model, (torch.from_numpy(x[:2]),), path, input_names=["input"], output_names=[out_name],
                          dynamic_axes={"input": {0: "batch"}, out_name: {0: "batch"}}, opset_version=opset,
                          do_constant_folding=True)


def make(name, opsets, n_calib, n_eval, force):
    import onnx
    import torch
    folders = {op: common.model_dir(f"{name}_op{op}") for op in opsets}
    todo = [op for op, f in folders.items() if force or not common.is_complete(f)]
    if not todo:
        common.log(f"{name}: cached ({', '.join(folders.values())})")
        return
    torch.set_num_threads(max(1, min(2, os.cpu_count() or 1)))
    seed = 1000 + ORDER.index(name)
    model, size, task, notes = build(name, seed)
    _, _, _, out_name = MODELS[name]
    rng_bn, rng_calib, rng_eval = (np.random.default_rng(seed * 10 + k) for k in range(3))
    common.log(f"{name}: re-estimating BatchNorm statistics")
    bn_batches, bn_bs = (12, 16) if task == "segmentation" else (24, 16)
    n_damped = damp_residual_branches(model)
    if n_damped:
        notes.append(f"gamma and beta of the last BatchNorm of {n_damped} residual branches scaled by "
                     f"{RESIDUAL_GAMMA} (a random BN network is otherwise chaotic)")
    n_bn = reestimate_bn(model, size, rng_bn, bn_batches, bn_bs)
    model.eval()
    n_head = standardise_head(model, final_layer(model, task), size, rng_bn, 4, 16)
    notes.append(f"final layer standardised per class over {n_head} crops (mean 0, std {HEAD_STD})")
    if task == "segmentation":
        model = wrap_segmentation(model).eval()
    for p in model.parameters():
        p.requires_grad_(True)
    calib = common.imagenet_batch(rng_calib, n_calib, size, scale=(0.25, 1.0))
    evalx = common.imagenet_batch(rng_eval, n_eval, size, scale=(0.25, 1.0))
    common.log(f"{name}: torch reference on {n_eval} eval samples")
    ref = forward_ref(model, evalx)
    stats = {"ref_std": float(ref.std()), "ref_mean_abs": float(np.abs(ref).mean())}
    # how much the float model itself amplifies a small input change (a yardstick for int8 SQNR)
    noise = np.random.default_rng(seed + 7).normal(0, 1, evalx[:8].shape).astype(np.float32)
    noise *= np.sqrt((evalx[:8] ** 2).mean() / 1e4) / noise.std()
    noisy = forward_ref(model, evalx[:8] + noise)
    stats["output_sqnr_db_at_40db_input_noise"] = common.sqnr_db(ref[:8], noisy)
    stats["top1_agreement_at_40db_input_noise"] = float(np.mean(ref[:8].argmax(1) == noisy.argmax(1)))
    if task == "classification":
        top = ref.argmax(-1)
        stats["distinct_top1_classes_in_eval"] = int(len(set(top.tolist())))
        srt = np.sort(ref, -1)
        stats["median_top1_top2_gap"] = float(np.median(srt[:, -1] - srt[:, -2]))
    else:
        stats["distinct_pixel_classes_in_eval"] = int(len(np.unique(ref.argmax(1))))
    for op in todo:
        folder = folders[op]
        common.fresh(folder)
        path = os.path.join(folder, "model.onnx")
        common.log(f"{name}: exporting opset {op}")
        export(model, evalx, path, out_name, op)
        common.write_split(os.path.join(folder, "calib"), {"input": calib})
        common.write_split(os.path.join(folder, "eval"), {"input": evalx})
        common.write_split(os.path.join(folder, "ref"), {out_name: ref})
        m = onnx.load(path, load_external_data=False)
        ops = collections.Counter(n.op_type for n in m.graph.node)
        # the export must compute torch's math: ONNX Runtime on eval/ against ref/
        common.log(f"{name}: checking opset {op} in ONNX Runtime")
        chk = os.path.join(folder, ".ort_check")
        common.ort_run(path, os.path.join(folder, "eval"), chk, threads=2)
        got = np.load(os.path.join(chk, out_name + ".npy"))
        ort_err = float(np.abs(got - ref).max())
        import shutil
        shutil.rmtree(chk, ignore_errors=True)
        common.write_meta(folder, {
            "name": f"{name}_op{op}", "family": "torchvision", "source": f"torchvision 0.14 models.{MODELS[name][0]}",
            "weights": f"random (torch.manual_seed({seed})), BatchNorm statistics re-estimated in train mode on "
                       f"{n_bn} natural-image crops (sklearn load_sample_images: RandomResizedCrop 0.08-1, flips, "
                       f"brightness/contrast)" if n_bn else f"random (torch.manual_seed({seed})), no BatchNorm",
            "notes": notes, "task": task, "opset": op, "exporter": f"torch {torch.__version__} torch.onnx.export",
            "inputs": {"input": [None, 3, size, size]}, "input_names": ["input"], "output_names": [out_name],
            "input_preprocessing": f"{size}x{size} RandomResizedCrop (scale 0.25-1) of the sample photographs, "
                                   f"flips, brightness/contrast, RGB /255, ImageNet mean/std",
            "calib": common.split_info({"input": calib}), "eval": common.split_info({"input": evalx}),
            "ref": "torch eval mode on eval/", "ref_stats": stats, "ort_vs_torch_max_abs": ort_err,
            "op_counts": dict(sorted(ops.items())), "model_bytes": common.model_bytes(path),
        })
        common.log(f"{name}_op{op}: done, {common.model_bytes(path) / 1e6:.1f} MB, ORT vs torch max abs {ort_err:.3g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(ORDER))
    ap.add_argument("--opsets", default="13,17")
    ap.add_argument("--calib", type=int, default=32)
    ap.add_argument("--eval", type=int, default=32)
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    opsets = [int(o) for o in a.opsets.split(",")]
    failed = []
    for name in a.models.split(","):
        if name not in MODELS:
            sys.exit(f"unknown model {name}; known: {', '.join(ORDER)}")
        n_c, n_e = (16, 16) if MODELS[name][2] == "segmentation" else (a.calib, a.eval)
        try:
            make(name, opsets, n_c, n_e, a.force)
        except Exception as e:  # one model's failure does not stop the others
            import traceback
            traceback.print_exc()
            failed.append(f"{name}: {e}")
    if failed:
        sys.exit("failed: " + "; ".join(failed))


if __name__ == "__main__":
    common.main_guard(main)
