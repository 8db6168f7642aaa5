#!/usr/bin/python3
"""Compares calibration methods and quantization methods on zoo models: ptq quantize (QOperator,
calibration.method=M, everything else default) per (variant, model), where a variant is a range method
followed by quantization switches joined by '+', each turned on, or off with a no_ prefix (e.g.
mse+no_bias_correction+smoothquant; the quantization keys of configs/README.md), then the worst output SQNR from the report and the task metric of the int8
outputs, beside the baseline's SQNR cached by run_zoo.py. Resumable: a finished (method, model) is reused.
Work files: $PTQ_ZOO_DIR/methods/<method>/<model>/. Prints a Markdown table.
    /usr/bin/python3 scripts/zoo/compare_methods.py --ptq build/ptq [--methods minmax,mse,mse+bias_correction] [--models a,b]"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import metrics  # noqa: E402
from run_zoo import available_models, read_json, select_models  # noqa: E402


def worst_sqnr(report):
    vals = [float(o["sqnr_db"]) for o in report["outputs"] if o.get("compared", True) and o.get("sqnr_db") is not None]
    return min(vals) if vals else None


def run_one(ptq, method, model, threads):
    md = common.model_dir(model)
    w = os.path.join(common.zoo_dir(), "methods", method, model)
    done = os.path.join(w, "result.json")
    if os.path.exists(done):
        return read_json(done)
    os.makedirs(w, exist_ok=True)
    meta = read_json(os.path.join(md, "meta.json"))
    # batch 8 where the model's batch axis is free (ptq falls back to 1 where it is fixed)
    range_method, *switches = method.split("+")
    cfg = {"model": os.path.join(md, "model.onnx"), "output": os.path.join(w, "model.int8.onnx"),
           "calibration": {"data": os.path.join(md, "calib"), "method": range_method, "batch_size": 8},
           "quantization": {k[3:] if k.startswith("no_") else k: not k.startswith("no_") for k in switches},
           "validation": {"data": os.path.join(md, "eval"), "report": os.path.join(w, "report.json")}}
    with open(os.path.join(w, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    res = {"method": method, "model": model}
    q = subprocess.run([ptq, "quantize", "--config", os.path.join(w, "config.json"), "--quiet", "--threads", str(threads)],
                       capture_output=True, text=True)
    if q.returncode not in (0, 3):
        res["error"] = q.stderr.strip()[-500:]
        return res
    res["sqnr_db"] = worst_sqnr(read_json(os.path.join(w, "report.json")))
    out = os.path.join(w, "out")
    r = subprocess.run([ptq, "run", cfg["output"], "--inputs", os.path.join(md, "eval"), "--outputs", out,
                        "--threads", str(threads)], capture_output=True, text=True)
    if r.returncode == 0:
        m = metrics.compute(meta, md, common.load_split(os.path.join(md, "ref")), common.load_split(out))
        res["task"] = metrics.headline(meta.get("task"), m)
    with open(done, "w") as f:
        json.dump(res, f, indent=1)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptq", default=os.path.join(common.REPO, "build", "ptq"))
    ap.add_argument("--methods", default="minmax,percentile,mse")
    ap.add_argument("--models", default="")
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    methods = a.methods.split(",")
    models = select_models(a.models, available_models())
    rows = ["| model | " + " | ".join(methods) + " | baseline | task (" + " / ".join(methods) + ") |",
            "|---" * (len(methods) + 3) + "|"]
    for model in models:
        cells, tasks = [], []
        for m in methods:
            r = run_one(a.ptq, m, model, a.threads)
            common.log(f"{model} / {m}: {r.get('sqnr_db', r.get('error'))}")
            cells.append(f"{r['sqnr_db']:.2f}" if r.get("sqnr_db") is not None else "FAIL")
            tasks.append(r.get("task", "-"))
        base = read_json(os.path.join(common.zoo_dir(), "results", model, "baseline.json")) or {}
        b = base.get("sqnr_db")
        base_cell = f"{b:.2f}" if b is not None else "-"
        rows.append(f"| {model} | " + " | ".join(cells) + f" | {base_cell} | " + " / ".join(tasks) + " |")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
