#!/usr/bin/python3
"""Times `ptq rewrite` on a generated chain graph (MatMul -> bias Add -> Relu blocks) of N nodes.

usage: /usr/bin/python3 scripts/bench_rewrite.py PTQ [PTQ ...] [--nodes 20000] [--runs 3] [--dir DIR]
                                                 [--formats qoperator,qdq]

Generates the model and calibration data once (in DIR, default a temporary folder), calibrates with
the first binary, then for each binary runs `ptq rewrite` --runs times (both formats) and prints the
best wall time. Binaries are compared on the same table, so an old and a new ptq can be timed side by
side on the same machine in the same run.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def make_model(nodes, path):
    blocks = nodes // 3
    rng = np.random.default_rng(0)
    inits, graph_nodes = [], []
    for i in range(blocks):
        w = rng.uniform(-1, 1, (16, 16)).astype(np.float32) / 4
        b = rng.uniform(-0.1, 0.1, 16).astype(np.float32)
        inits += [numpy_helper.from_array(w, f"w{i}"), numpy_helper.from_array(b, f"b{i}")]
        graph_nodes += [
            helper.make_node("MatMul", [f"x{i}", f"w{i}"], [f"p{i}"], name=f"mm{i}"),
            helper.make_node("Add", [f"p{i}", f"b{i}"], [f"a{i}"], name=f"add{i}"),
            helper.make_node("Relu", [f"a{i}"], [f"x{i + 1}"], name=f"relu{i}"),
        ]
    g = helper.make_graph(graph_nodes, "chain",
                          [helper.make_tensor_value_info("x0", TensorProto.FLOAT, ["N", 16])],
                          [helper.make_tensor_value_info(f"x{blocks}", TensorProto.FLOAT, ["N", 16])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    onnx.save(m, path)
    return blocks * 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ptq", nargs="+")
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--dir")
    ap.add_argument("--formats", default="qoperator,qdq")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="ptq_bench_rewrite_")
    os.makedirs(os.path.join(d, "calib"), exist_ok=True)
    model = os.path.join(d, "chain.onnx")
    n = make_model(a.nodes, model)
    np.save(os.path.join(d, "calib", "x0.npy"), np.random.default_rng(1).uniform(-1, 1, (8, 16)).astype(np.float32))
    results = {}
    for fmt in a.formats.split(","):
        cfg = os.path.join(d, f"{fmt}.json")
        with open(cfg, "w") as f:
            json.dump({"model": model, "output": os.path.join(d, f"chain.{fmt}.onnx"),
                       "calibration": {"data": os.path.join(d, "calib"), "batch_size": 8,
                                       "table": os.path.join(d, "table.json")},
                       "quantization": {"format": fmt, "attention": False}}, f)
        if not os.path.exists(os.path.join(d, "table.json")):
            subprocess.run([a.ptq[0], "calibrate", "--config", cfg, "--quiet"], check=True)
        for binary in a.ptq:
            best = float("inf")
            for _ in range(a.runs):
                t0 = time.perf_counter()
                subprocess.run([binary, "rewrite", "--config", cfg, "--quiet"], check=True)
                best = min(best, time.perf_counter() - t0)
            results.setdefault(binary, {})[fmt] = best
            print(f"{binary} rewrite {fmt}: {n} nodes, best of {a.runs}: {best:.2f} s", flush=True)
    print(json.dumps({"nodes": n, "seconds": results}))


if __name__ == "__main__":
    sys.exit(main())
