#!/usr/bin/python3
"""Top-1 of the trained fixtures (tests/data/digits_vit, digits_cnn) under each quantization method, on the
whole held-out digits test set (360 samples: sklearn's digits has 1797 images, 1437 of them train the
fixtures, so no larger untouched split exists), float against int8, calibration on the fixtures' calib/.
Work files: $PTQ_ZOO_DIR/fixture_methods/. Prints a Markdown table.
    /usr/bin/python3 scripts/fixture_methods.py --ptq build/ptq [--methods mse+no_bias_correction,mse]"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "zoo"))
import common  # noqa: E402
from make_models import digits_splits  # noqa: E402

FIXTURES = [("digits_cnn", "digits_cnn.onnx", "images"),
            ("digits_vit", "digits_vit_opset13.onnx", "pixel_values"),
            ("digits_vit", "digits_vit_opset17.onnx", "pixel_values")]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptq", default=os.path.join(common.REPO, "build", "ptq"))
    ap.add_argument("--methods", default="mse+no_bias_correction,mse,mse+smoothquant,mse+cross_layer_equalization")
    a = ap.parse_args()
    work = os.path.join(common.zoo_dir(), "fixture_methods")
    test_x, test_y = digits_splits()["test"]
    methods = a.methods.split(",")
    print("| fixture | " + " | ".join(methods) + " |\n|---" * 1 + "|---" * len(methods) + "|")
    for folder, model, input_name in FIXTURES:
        data = os.path.join(work, input_name)
        os.makedirs(data, exist_ok=True)
        np.save(os.path.join(data, input_name + ".npy"), test_x)
        np.save(os.path.join(work, "labels.npy"), test_y)
        cells = []
        for m in methods:
            rng, *switches = m.split("+")
            d = os.path.join(work, model.replace(".onnx", ""), m)
            os.makedirs(d, exist_ok=True)
            src = os.path.join(common.REPO, "tests", "data", folder)
            cfg = {"model": os.path.join(src, model), "output": os.path.join(d, "q.onnx"),
                   "calibration": {"data": os.path.join(src, "calib"), "method": rng, "batch_size": 16},
                   "quantization": {k[3:] if k.startswith("no_") else k: not k.startswith("no_") for k in switches},
                   "validation": {"data": data, "labels": os.path.join(work, "labels.npy"),
                                  "report": os.path.join(d, "report.json")}}
            with open(os.path.join(d, "config.json"), "w") as f:
                json.dump(cfg, f, indent=1)
            p = subprocess.run([a.ptq, "quantize", "--config", os.path.join(d, "config.json"), "--quiet"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                cells.append("FAIL")
                continue
            o = json.load(open(os.path.join(d, "report.json")))["outputs"][0]
            t = o["top1"]
            cells.append(f"{100 * t['float']:.2f} → {100 * t['int8']:.2f} ({o['sqnr_db']:.1f} dB)")
        print(f"| {model} ({len(test_y)} samples) | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
