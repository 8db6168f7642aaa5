#!/usr/bin/python3
"""Benchmarks of the Python module (issue 19's targets), each against its reference in the same run:

1. Session.run overhead: a tiny model (one Add of a [1, 16] float input) run N times from Python,
   microseconds per call, beside ONNX Runtime's Node binding on the same model (scripts/ort/ort_bench.js).
2. Calibration through a Python generator against calibration from the .npy files of the same data:
   ptq.calibrate on a model and its samples, alternating the two, best of R rounds each.

Usage: PYTHONPATH=build/python /usr/bin/python3 scripts/bench_python.py [--rounds R] [--model M --data DIR]
(default model: the bundled digits ViT and its 64 calibration samples, repeated to --samples).
"""
import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

import ptq

ROOT = pathlib.Path(__file__).resolve().parents[1]


def tiny_model(path):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])
    one = helper.make_tensor("one", TensorProto.FLOAT, [16], [1.0] * 16)
    g = helper.make_graph([helper.make_node("Add", ["x", "one"], ["y"])], "tiny", [x], [y], [one])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)]), str(path))


def session_overhead(tmp, calls):
    model = tmp / "tiny.onnx"
    tiny_model(model)
    s = ptq.Session(str(model), threads=1)
    feeds = {"x": np.ones((1, 16), np.float32)}
    for _ in range(1000):
        s.run(feeds)
    best = float("inf")
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(calls):
            s.run(feeds)
        best = min(best, (time.perf_counter() - t0) / calls * 1e6)
    ort = None
    inputs = tmp / "tiny_inputs"
    inputs.mkdir()
    np.save(inputs / "x.npy", feeds["x"])
    bench = ROOT / "scripts" / "ort" / "ort_bench.js"
    r = subprocess.run(["node", str(bench), str(model), str(inputs), "1", "2"], capture_output=True, text=True,
                       cwd=bench.parent)
    if r.returncode == 0:
        ort = json.loads(r.stdout)["min_ms"] * 1e3
    return best, ort


def calibration_speed(tmp, model, data, samples, batch, rounds):
    arrays = {p.stem: np.load(p) for p in sorted(pathlib.Path(data).glob("*.npy"))}
    reps = -(-samples // len(next(iter(arrays.values()))))
    arrays = {k: np.concatenate([v] * reps)[:samples] for k, v in arrays.items()}
    folder = tmp / "npy"
    folder.mkdir()
    for k, v in arrays.items():
        np.save(folder / f"{k}.npy", v)
    config = {"model": str(model), "output": str(tmp / "out.int8.onnx"),
              "calibration": {"data": str(folder), "batch_size": batch}}
    no_data = {k: v for k, v in config.items() if k != "calibration"}
    no_data["calibration"] = {"batch_size": batch}

    def generator():
        for i in range(0, samples, batch):
            yield {k: v[i:i + batch] for k, v in arrays.items()}

    files, gen = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        ptq.calibrate(config, threads=1)
        files.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ptq.calibrate(no_data, calibration_data=generator(), threads=1)
        gen.append(time.perf_counter() - t0)
    return min(files), min(gen)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=20000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--model", default=str(ROOT / "tests/data/digits_vit/digits_vit_opset13.onnx"))
    ap.add_argument("--data", default=str(ROOT / "tests/data/digits_vit/calib"))
    ap.add_argument("--samples", type=int, default=512)
    ap.add_argument("--batch", type=int, default=16)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as t:
        tmp = pathlib.Path(t)
        us, ort_us = session_overhead(tmp, a.calls)
        files, gen = calibration_speed(tmp, a.model, a.data, a.samples, a.batch, a.rounds)
    print(json.dumps({
        "session_run_us": round(us, 2), "onnxruntime_node_run_us": None if ort_us is None else round(ort_us, 2),
        "calibration_npy_s": round(files, 4), "calibration_generator_s": round(gen, 4),
        "generator_over_npy": round(gen / files, 3), "model": os.path.basename(a.model), "samples": a.samples}))


if __name__ == "__main__":
    sys.exit(main())
