#!/usr/bin/python3
"""Automatic fallback against keeping whole blocks float, on a model whose loss sits in one place.

Takes the zoo's ResNet-50 (random weights, BatchNorm re-estimated) and gives one channel of one
bottleneck's first convolution a 64x larger scale, taking it back out of the next convolution's weights
(Relu(64 x) = 64 Relu(x): the float model computes the same). Trained networks carry such outlier
channels; here it makes one activation's per-tensor scale 64x too coarse for its other channels. Then:
  default            ptq quantize, nothing kept float
  fallback auto      quantization.fallback "auto" with a gate the default misses
  whole block        quantization.exclude_nodes = every node of that bottleneck block
  whole stage        every node of the stage (layer3) holding the block
  equalization       quantization.cross_layer_equalization, nothing kept float (the outlier sits
                     between two convolutions across a Relu: exactly what equalization undoes)
and prints, for each, the output SQNR, the gate verdict and how many Conv nodes stay float.
Work files: $PTQ_ZOO_DIR/fallback_demo/.
    /usr/bin/python3 scripts/zoo/fallback_demo.py --ptq build/ptq [--gate 18] [--block /layer3/layer3.2/]"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

FACTOR = 64.0
CHANNEL = 7


def make_outlier_model(src, dst, block):
    m = onnx.load(src)
    inits = {t.name: t for t in m.graph.initializer}
    conv1 = next(n for n in m.graph.node if n.op_type == "Conv" and n.name == block + "conv1/Conv")
    conv2 = next(n for n in m.graph.node if n.op_type == "Conv" and n.name == block + "conv2/Conv")
    w1, b1, w2 = (numpy_helper.to_array(inits[n]).copy() for n in (conv1.input[1], conv1.input[2], conv2.input[1]))
    w1[CHANNEL] *= FACTOR
    b1[CHANNEL] *= FACTOR
    w2[:, CHANNEL] /= FACTOR
    for name, v in ((conv1.input[1], w1), (conv1.input[2], b1), (conv2.input[1], w2)):
        inits[name].CopyFrom(numpy_helper.from_array(v.astype(np.float32), name))
    onnx.save(m, dst)
    return sum(1 for n in m.graph.node if n.op_type == "Conv")


def run(ptq, work, name, model, md, quantization, gate, threads):
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    cfg = {"model": model, "output": os.path.join(d, "q.onnx"),
           "calibration": {"data": os.path.join(md, "calib"), "batch_size": 8},
           "quantization": quantization,
           "validation": {"data": os.path.join(md, "eval"), "report": os.path.join(d, "report.json"),
                          "gate": {"min_sqnr_db": gate}}}
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    p = subprocess.run([ptq, "quantize", "--config", os.path.join(d, "config.json"), "--quiet", "--threads", str(threads)],
                       capture_output=True, text=True)
    if p.returncode not in (0, 3):
        sys.exit(f"{name}: ptq failed ({p.returncode}): {p.stderr[-800:]}")
    r = json.load(open(os.path.join(d, "report.json")))
    q = onnx.load(os.path.join(d, "q.onnx"), load_external_data=False)
    # A Conv kept float reads its float weight initializer; a quantized one is a QLinearConv, or a Conv
    # reading its weight from a DequantizeLinear (its output feeds a float reader as well).
    float_weights = {t.name for t in q.graph.initializer if t.data_type == onnx.TensorProto.FLOAT}
    float_convs = sum(1 for n in q.graph.node if n.op_type == "Conv" and n.input[1] in float_weights)
    sqnr = min(o["sqnr_db"] for o in r["outputs"])
    return {"sqnr": sqnr, "passed": r["gate"]["passed"], "float_convs": float_convs, "report": r}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptq", default=os.path.join(common.REPO, "build", "ptq"))
    ap.add_argument("--gate", type=float, default=18.0)
    ap.add_argument("--block", default="/layer3/layer3.2/")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    md = common.model_dir("resnet50_op13")
    if not os.path.exists(os.path.join(md, "model.onnx")):
        sys.exit("run scripts/zoo/zoo.sh first (the zoo's resnet50_op13 is missing)")
    work = os.path.join(common.zoo_dir(), "fallback_demo")
    os.makedirs(work, exist_ok=True)
    model = os.path.join(work, "resnet50_outlier.onnx")
    convs = make_outlier_model(os.path.join(md, "model.onnx"), model, a.block)
    stage = "/" + a.block.strip("/").split("/")[0] + "/"
    rows = []
    for key, name, quant in (("default", "default", {}),
                             ("fallback", "fallback auto", {"fallback": "auto"}),
                             ("block", "whole block " + a.block, {"exclude_nodes": ["/^" + a.block.replace(".", "\\.") + "/"]}),
                             ("stage", "whole stage " + stage, {"exclude_nodes": ["/^" + stage + "/"]}),
                             ("cle", "cross-layer equalization, nothing float", {"cross_layer_equalization": True})):
        r = run(a.ptq, work, key, model, md, quant, a.gate, a.threads)
        common.log(f"{name}: {r['sqnr']:.2f} dB, gate {'passed' if r['passed'] else 'failed'}, {r['float_convs']} float Conv")
        rows.append((name, r))
    print(f"ResNet-50 with one outlier channel ({FACTOR:g}x, channel {CHANNEL} of {a.block}conv1), {convs} Conv in all, "
          f"gate min_sqnr_db {a.gate}")
    print("| recipe | output SQNR (dB) | gate | Conv kept float |\n|---|---|---|---|")
    for name, r in rows:
        print(f"| {name} | {r['sqnr']:.2f} | {'passed' if r['passed'] else 'failed'} | {r['float_convs']} |")
    fb = rows[1][1]["report"].get("fallback")
    if fb:
        print("\nfallback kept float:", "; ".join(", ".join(k["nodes"]) for k in fb["kept_float"]),
              f"({fb['runs']} candidate models measured)")


if __name__ == "__main__":
    main()
