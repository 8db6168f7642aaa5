#!/usr/bin/python3
"""Runs ptq over every model of the zoo and caches one JSON result per (model, column); a stopped run goes on
where it stopped. Models are the complete folders under $PTQ_ZOO_DIR/models (made by the gen_*.py scripts).
    /usr/bin/python3 scripts/zoo/run_zoo.py [--models a,b] [--columns x,y] [--ptq build/ptq] [--force]
Columns (in this order; `quant` = both quant_*, `ort` = both ort_*):
  float           ptq run of the float model on eval/ against ref/ (max abs error, relative error, SQNR)
  quant_qoperator ptq quantize, quantization.format qoperator (default config otherwise; calibration data
                  calib/, validation data eval/): SQNR from the report, wall time, peak RSS, file sizes, float
                  MatMul/Gemm/Conv with a constant weight left in the int8 model; then ptq run of the int8 model
  quant_qdq       the same with quantization.format qdq
  ort_qoperator   ONNX Runtime loads and runs the int8 model; its output against ptq's int8 output
  ort_qdq         the same for the QDQ model
  baseline        /work/shared/baseline/qdq_baseline.py --conv (models below opset 13 are first converted to
                  opset 13 with onnx's version converter, shapes observed by ONNX Runtime written as value_info)
  task            the task metric, float against each int8 output (ptq, ONNX Runtime, baseline)
  latency         (only when asked) ptq bench and ONNX Runtime for float and int8, batches x threads
Results: $PTQ_ZOO_DIR/results/<model>/<column>.json; work files and one log per step:
$PTQ_ZOO_DIR/work/<model>/<column>/. Render with scripts/zoo/zoo_table.py."""
import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import metrics  # noqa: E402

BASELINE = os.environ.get("PTQ_BASELINE_DIR", "/work/shared/baseline")
COLUMNS = ["float", "quant_qoperator", "quant_qdq", "ort_qoperator", "ort_qdq", "baseline", "task", "latency"]
DEFAULT_COLUMNS = [c for c in COLUMNS if c != "latency"]
ALIASES = {"quant": ["quant_qoperator", "quant_qdq"], "ort": ["ort_qoperator", "ort_qdq"]}
ORDER = ["mobilenet_v2", "efficientnet_b0", "regnet_y_800mf", "ppocr_rec", "ppocr_det", "resnet50", "bert_base",
         "gpt2_small", "vit_b_16", "fcn_resnet50"]
WEIGHT_OPS = {"MatMul": (0, 1), "Gemm": (0, 1), "Conv": (1,)}
PASS_THROUGH = {"Identity", "Transpose", "Reshape", "Cast", "Squeeze", "Unsqueeze", "Flatten"}
FLOAT_TYPES = {1, 10, 11, 16}  # float, float16, double, bfloat16


class StepError(Exception):
    pass


# ---------------------------------------------------------------------------------------------------
# Small helpers

def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False, default=str)
    os.replace(tmp, path)


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def num(v):
    """ptq writes infinite SQNR as "inf"/"-inf"."""
    if isinstance(v, str):
        return float(v)
    return v


def parse_time(path):
    """/usr/bin/time -v output -> (peak RSS MB, wall seconds, cpu seconds)."""
    rss = wall = cpu = None
    try:
        text = open(path).read()
    except OSError:
        return None, None, None
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if m:
        rss = int(m.group(1)) / 1024.0
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): ([\d:.]+)", text)
    if m:
        parts = [float(p) for p in m.group(1).split(":")]
        wall = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
    u = re.search(r"User time \(seconds\): ([\d.]+)", text)
    s = re.search(r"System time \(seconds\): ([\d.]+)", text)
    if u and s:
        cpu = float(u.group(1)) + float(s.group(1))
    return rss, wall, cpu


def error_text(log, limit=600):
    """The error message of a failed step: lines that say error/failed/unsupported, else the log's tail."""
    lines = [ln.strip() for ln in log.splitlines() if ln.strip() and not ln.startswith("$ ")]
    lines = [ln for ln in lines if "[W:onnxruntime" not in ln]
    hits = [ln for ln in lines if re.search(r"error|fail|unsupported|not supported|cannot|invalid|refus|Traceback",
                                            ln, re.I)]
    pick = hits[-4:] if hits else lines[-4:]
    text = " | ".join(pick)
    return text[:limit] if text else "(no output)"


def diff_stats(r, q, chunk=1 << 22):
    """max abs difference, relative error (max abs / max |ref|), SQNR and the share of identical elements,
    computed in chunks (GPT-2's logits are 0.8 GB)."""
    r, q = r.reshape(-1), q.reshape(-1)
    mx = scale = sig = err = 0.0
    same = 0
    for i in range(0, r.size, chunk):
        a = np.asarray(r[i:i + chunk], np.float64)
        b = np.asarray(q[i:i + chunk], np.float64)
        d = a - b
        mx = max(mx, float(np.abs(d).max()))
        scale = max(scale, float(np.abs(a).max()))
        sig += float(np.dot(a, a))
        err += float(np.dot(d, d))
        same += int(np.count_nonzero(d == 0))
    sq = float("inf") if err == 0 else (float("-inf") if sig == 0 else float(10 * np.log10(sig / err)))
    return {"max_abs": mx, "rel_err": mx / scale if scale else None, "sqnr_db": sq,
            "identical_share": same / r.size if r.size else 1.0}


def compare_dirs(ref_dir, got_dir, names=None):
    """Per .npy in ref_dir: max abs difference, relative error (max abs / max |ref|), SQNR; and the worst."""
    out = {}
    for f in sorted(os.listdir(ref_dir)):
        if not f.endswith(".npy") or (names and f[:-4] not in names):
            continue
        g = os.path.join(got_dir, f)
        if not os.path.exists(g):
            out[f[:-4]] = {"error": "missing output " + f}
            continue
        r, q = np.load(os.path.join(ref_dir, f), mmap_mode="r"), np.load(g, mmap_mode="r")
        if r.shape != q.shape:
            out[f[:-4]] = {"error": f"shape {list(q.shape)} != {list(r.shape)}"}
            continue
        out[f[:-4]] = diff_stats(r, q)
    worst = {}
    good = [v for v in out.values() if "error" not in v]
    if good:
        worst = {"max_abs": max(v["max_abs"] for v in good), "sqnr_db": min(v["sqnr_db"] for v in good),
                 "rel_err": max((v["rel_err"] or 0.0) for v in good)}
    errs = [f"{k}: {v['error']}" for k, v in out.items() if "error" in v]
    return out, worst, errs


def float_weight_ops(model_path):
    """MatMul/Gemm/Conv nodes that read a float constant weight (an initializer or Constant, also through
    Identity/Transpose/Reshape/Cast/Squeeze/Unsqueeze/Flatten of constants). Returns the node names."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    g = m.graph
    init_type = {t.name: t.data_type for t in g.initializer}
    prod = {o: n for n in g.node for o in n.output}
    memo = {}

    def const_kind(name, depth=0):
        """None if not constant, else the element type of the constant."""
        if name in memo:
            return memo[name]
        if depth > 20:
            return None
        if name in init_type:
            res = init_type[name]
        else:
            n = prod.get(name)
            res = None
            if n is not None and n.op_type == "Constant":
                for a in n.attribute:
                    if a.name == "value":
                        res = a.t.data_type
                    elif a.name in ("value_float", "value_floats"):
                        res = 1
            elif n is not None and n.op_type in PASS_THROUGH and n.input:
                first = const_kind(n.input[0], depth + 1)
                rest_const = all(const_kind(i, depth + 1) is not None for i in n.input[1:] if i)
                if first is not None and rest_const:
                    res = first
                    if n.op_type == "Cast":
                        to = [a.i for a in n.attribute if a.name == "to"]
                        res = to[0] if to else first
        memo[name] = res
        return res

    names = []
    for n in g.node:
        idx = WEIGHT_OPS.get(n.op_type)
        if not idx:
            continue
        for i in idx:
            if i < len(n.input) and n.input[i] and const_kind(n.input[i]) in FLOAT_TYPES:
                names.append(n.name or f"{n.op_type}->{n.output[0]}")
                break
    return names


# ---------------------------------------------------------------------------------------------------

class Runner:
    def __init__(self, a):
        self.a = a
        self.zoo = common.zoo_dir()
        self.ptq = os.path.abspath(a.ptq)
        probe = a.core_probe
        if probe is None:
            probe = os.path.join(os.path.dirname(self.ptq), "tests", "ptq_core_latency_bench")
            probe = probe if os.access(probe, os.X_OK) else ""
        self.core_probe = probe
        if not os.path.exists(self.ptq):
            sys.exit(f"ptq binary not found: {self.ptq} (build: cmake --build build -j2 --target ptq)")
        r = subprocess.run([self.ptq, "--version"], capture_output=True, text=True)
        self.ptq_version = (r.stdout or r.stderr).strip()
        self.ptq_sha = sha256_file(self.ptq)
        self.env = common.node_env()

    # paths
    def result_path(self, model, col):
        return os.path.join(self.zoo, "results", model, col + ".json")

    def work(self, model, col):
        d = os.path.join(self.zoo, "work", model, col)
        os.makedirs(d, exist_ok=True)
        return d

    def result(self, model, col):
        return read_json(self.result_path(model, col))

    def timed(self, cmd, log, timeout, env=None):
        """Runs cmd under /usr/bin/time -v; returns (rc, wall seconds, log text, peak RSS MB)."""
        tfile = log + ".time"
        if os.path.exists(tfile):
            os.remove(tfile)
        full = ["/usr/bin/time", "-v", "-o", tfile] + cmd if os.path.exists("/usr/bin/time") else cmd
        rc, dt, text = common.run_cmd(full, log, timeout, env=env)
        rss, wall, cpu = parse_time(tfile)
        return rc, dt, text, rss, cpu

    def fail_text(self, rc, text, timeout):
        if rc is None:
            return f"timeout after {timeout} s"
        return f"exit {rc}: " + error_text(text)

    # -----------------------------------------------------------------------------------------------
    # columns

    def col_float(self, model, md, meta, w):
        out = os.path.join(w, "out")
        shutil.rmtree(out, ignore_errors=True)
        rc, dt, text, rss, cpu = self.timed([self.ptq, "run", os.path.join(md, "model.onnx"), "--inputs",
                                             os.path.join(md, "eval"), "--outputs", out, "--threads",
                                             str(self.a.threads)], os.path.join(w, "ptq_run.log"), self.a.timeout)
        if rc != 0:
            raise StepError(self.fail_text(rc, text, self.a.timeout))
        per, worst, errs = compare_dirs(os.path.join(md, "ref"), out)
        if errs:
            raise StepError("; ".join(errs))
        return {"outputs": per, **worst, "seconds": dt, "peak_rss_mb": rss}

    def col_quant(self, model, md, meta, w, fmt):
        mpath = os.path.join(md, "model.onnx")
        out_model = os.path.join(w, "model.int8.onnx")
        report = os.path.join(w, "report.json")
        for p in (out_model, report):
            if os.path.exists(p):
                os.remove(p)
        cfg = {"model": mpath, "output": out_model,
               "calibration": {"data": os.path.join(md, "calib"), "table": os.path.join(w, "calib_table.json")},
               "quantization": {"format": fmt},
               "validation": {"data": os.path.join(md, "eval"), "report": report}}
        cfg_path = os.path.join(w, "config.json")
        write_json(cfg_path, cfg)
        cmd = [self.ptq, "quantize", "--config", cfg_path, "--threads", str(self.a.threads)]
        for s in self.a.set or []:
            cmd += ["--set", s]
        res = {"config": cfg, "set": self.a.set or [], "float_bytes": common.model_bytes(mpath)}
        rc, dt, text, rss, cpu = self.timed(cmd, os.path.join(w, "quantize.log"), self.a.timeout)
        res.update({"seconds": dt, "cpu_seconds": cpu, "peak_rss_mb": rss, "exit_code": rc})
        if rc not in (0, 3):
            raise StepError(self.fail_text(rc, text, self.a.timeout), res)
        rep = read_json(report) or {}
        outs = rep.get("outputs", [])
        res["outputs"] = {o["name"]: {"sqnr_db": num(o.get("sqnr_db")), "cosine": o.get("cosine"),
                                      "max_abs_error": o.get("max_abs_error")} for o in outs}
        if outs:
            res["sqnr_db"] = min(num(o.get("sqnr_db")) for o in outs)
        res["op_counts"] = rep.get("model", {}).get("op_counts")
        worst = rep.get("layers", [])[:3]
        res["worst_layers"] = [{"node": l.get("node"), "op": l.get("op"), "sqnr_db": num(l.get("sqnr_db"))}
                               for l in worst]
        res["int8_bytes"] = common.model_bytes(out_model)
        res["size_ratio"] = res["int8_bytes"] / res["float_bytes"]
        fl = float_weight_ops(out_model)
        total = float_weight_ops(mpath)
        res["float_weight_ops"] = len(fl)
        res["float_weight_ops_names"] = fl[:50]
        res["weight_ops_in_float_model"] = len(total)
        # ptq's int8 outputs on eval/, for the ONNX Runtime and task columns
        pout = os.path.join(w, "ptq_out")
        shutil.rmtree(pout, ignore_errors=True)
        rc2, dt2, text2, rss2, _ = self.timed([self.ptq, "run", out_model, "--inputs", os.path.join(md, "eval"),
                                               "--outputs", pout, "--threads", str(self.a.threads)],
                                              os.path.join(w, "ptq_run_int8.log"), self.a.timeout)
        if rc2 != 0:
            res["run_error"] = self.fail_text(rc2, text2, self.a.timeout)
        else:
            per, worst2, errs = compare_dirs(os.path.join(md, "ref"), pout)
            res["run_vs_ref"] = worst2
            res["run_seconds"] = dt2
        return res

    def col_ort(self, model, md, meta, w, fmt):
        q = self.result(model, "quant_" + fmt)
        if not q or q.get("status") != "ok":
            raise StepError(f"skipped: quant_{fmt} " + ("not run" if not q else "failed"), {"skipped": True})
        qw = self.work(model, "quant_" + fmt)
        out = os.path.join(w, "out")
        shutil.rmtree(out, ignore_errors=True)
        rc, dt, text, rss, _ = self.timed(["node", os.path.join(common.HERE, "ort_run.js"),
                                           os.path.join(qw, "model.int8.onnx"), os.path.join(md, "eval"), out,
                                           "--threads", str(self.a.threads)], os.path.join(w, "ort_run.log"),
                                          self.a.timeout, env=self.env)
        if rc != 0:
            raise StepError("ONNX Runtime: " + self.fail_text(rc, text, self.a.timeout), {"ort_loads": False})
        res = {"ort_loads": True, "seconds": dt, "peak_rss_mb": rss}
        _, vs_ref, _ = compare_dirs(os.path.join(md, "ref"), out)
        res["vs_float"] = vs_ref
        pout = os.path.join(qw, "ptq_out")
        if os.path.isdir(pout):
            per, worst, errs = compare_dirs(pout, out)
            res["vs_ptq"] = worst
            res["vs_ptq_outputs"] = per
            if errs:
                res["vs_ptq_errors"] = errs
        else:
            res["vs_ptq"] = None
            res["note"] = "no ptq int8 outputs (ptq run of the int8 model failed)"
        return res

    def col_baseline(self, model, md, meta, w):
        opset = common.opset_of(os.path.join(md, "model.onnx"))
        inp = md
        res = {"opset": opset}
        if opset is not None and opset < 13:
            inp = os.path.join(w, "input")
            os.makedirs(inp, exist_ok=True)
            for d in ("calib", "eval", "ref"):
                link = os.path.join(inp, d)
                if not os.path.lexists(link):
                    os.symlink(os.path.join(md, d), link)
            conv = os.path.join(inp, "model.onnx")
            try:
                common.convert_to_opset13(os.path.join(md, "model.onnx"), os.path.join(md, "calib"),
                                          conv + ".tmp", os.path.join(w, "convert"))
                os.replace(conv + ".tmp", conv)
            except Exception as e:
                raise StepError(f"opset {opset} -> 13 conversion for the baseline failed: "
                                f"{type(e).__name__}: {str(e)[:400]}", res)
            res["converted_to_opset13"] = True
        out = os.path.join(w, "out")
        shutil.rmtree(out, ignore_errors=True)
        env = dict(self.env)
        rc, dt, text, rss, cpu = self.timed(["/usr/bin/python3", os.path.join(BASELINE, "qdq_baseline.py"), inp, out,
                                             "--conv"], os.path.join(w, "baseline.log"), self.a.timeout, env=env)
        res.update({"seconds": dt, "peak_rss_mb": rss})
        if rc != 0:
            raise StepError(self.fail_text(rc, text, self.a.timeout), res)
        last = [ln for ln in text.splitlines() if ln.startswith("{")]
        fig = json.loads(last[-1]) if last else {}
        res.update({"sqnr_db": fig.get("min_sqnr_db"), "max_abs": fig.get("max_abs")})
        q = os.path.join(out, "qdq.onnx")
        if os.path.exists(q):
            res["int8_bytes"] = os.path.getsize(q)
        # the calibration model and its per-activation outputs are large and no longer needed
        shutil.rmtree(os.path.join(out, "calib_out"), ignore_errors=True)
        cm = os.path.join(out, "calib_model.onnx")
        if os.path.exists(cm):
            os.remove(cm)
        return res

    def task_sources(self, model):
        srcs = {}
        for fmt in ("qoperator", "qdq"):
            srcs["ptq_" + fmt] = os.path.join(self.zoo, "work", model, "quant_" + fmt, "ptq_out")
            srcs["ort_" + fmt] = os.path.join(self.zoo, "work", model, "ort_" + fmt, "out")
        srcs["baseline"] = os.path.join(self.zoo, "work", model, "baseline", "out", "eval_out")
        return srcs

    def task_stamp(self, model):
        """What the task column was computed from: the mtimes of the upstream results."""
        st = {}
        for c in ("quant_qoperator", "quant_qdq", "ort_qoperator", "ort_qdq", "baseline"):
            p = self.result_path(model, c)
            st[c] = os.path.getmtime(p) if os.path.exists(p) else None
        return st

    def col_task(self, model, md, meta, w):
        task = meta.get("task")
        if task not in ("classification", "segmentation", "language_model", "ocr_rec", "ocr_det"):
            return {"task": task, "note": "no task metric for this model", "stamp": self.task_stamp(model)}
        ref = common.load_split(os.path.join(md, "ref"))
        res = {"task": task, "sources": {}, "stamp": self.task_stamp(model)}
        for name, d in self.task_sources(model).items():
            upstream = {"ptq_qoperator": "quant_qoperator", "ptq_qdq": "quant_qdq", "ort_qoperator": "ort_qoperator",
                        "ort_qdq": "ort_qdq", "baseline": "baseline"}[name]
            r = self.result(model, upstream)
            if not r or r.get("status") != "ok" or not os.path.isdir(d):
                continue
            try:
                got = common.load_split(d)
                res["sources"][name] = metrics.compute(meta, md, ref, got)
            except Exception as e:
                res["sources"][name] = {"error": f"{type(e).__name__}: {e}"}
            finally:
                got = None
        if task in ("ocr_rec", "ocr_det"):
            res["float_vs_ground_truth"] = meta.get("float_task")
        return res

    def col_latency(self, model, md, meta, w):
        prev = self.result(model, "latency") or {}
        res = {"runs": dict(prev.get("runs", {})) if not self.a.force else {}}
        ev = common.load_split(os.path.join(md, "eval"))
        models = {"float": os.path.join(md, "model.onnx")}
        for fmt in ("qoperator", "qdq"):
            q = self.result(model, "quant_" + fmt)
            if q and q.get("status") == "ok":
                models[fmt] = os.path.join(self.zoo, "work", model, "quant_" + fmt, "model.int8.onnx")
        kinds = [k for k in self.a.lat_models.split(",") if k in models]
        errors = {}
        for b in [int(x) for x in self.a.lat_batches.split(",")]:
            bdir = os.path.join(w, f"inputs_b{b}")
            if not os.path.isdir(bdir):
                os.makedirs(bdir + ".tmp", exist_ok=True)
                for k, v in ev.items():
                    reps = int(np.ceil(b / len(v)))
                    np.save(os.path.join(bdir + ".tmp", k + ".npy"), np.concatenate([v] * reps)[:b])
                os.replace(bdir + ".tmp", bdir)
            for t in [int(x) for x in self.a.lat_threads.split(",")]:
                # --lat-pairs N: the measurements of this batch and thread count (ptq and ONNX Runtime on every model
                # form) are taken in turn, N rounds, each round in the reverse order of the one before; each keeps
                # the median of its medians (and the fastest round's median, and its lowest minimum), so that a slow
                # spell of a shared machine hits both sides of every ratio alike (ptq / ONNX Runtime, int8 / float,
                # QDQ / QOperator).
                order = [(kind, rt) for kind in kinds for rt in ("ptq", "ort")]
                samples = {}
                for round_index in range(self.a.lat_pairs):
                    for kind, rt in order if round_index % 2 == 0 else order[::-1]:
                        key = f"{rt}/{kind}/b{b}/t{t}"
                        if key in res["runs"] or key in errors:
                            continue
                        if rt == "ptq":
                            cmd = [self.ptq, "bench", models[kind], "--inputs", bdir, "--threads", str(t),
                                   "--seconds", str(self.a.lat_seconds)]
                        else:
                            cmd = ["node", os.path.join(common.REPO, "scripts", "ort", "ort_bench.js"), models[kind],
                                   bdir, str(t), str(self.a.lat_seconds)]
                        log = os.path.join(w, key.replace("/", "_") + ".log")
                        # The machine's state for this run: how fast a cache line goes between two cores (a VM's
                        # vCPUs move between L3 caches; tests/bench/core_latency_bench.cc), before and after it (the
                        # state can change during a run: MobileNetV2 int8 took 3.2 ms on two threads after a probe
                        # of 50 ns, 2.2 in the state that probe reported).
                        trip = self.core_round_trip() if t > 1 else None
                        common.log(f"  latency {model} {key}" + (f" (core round trip {trip:.0f} ns)" if trip else ""))
                        rc, dt, text = common.run_cmd(cmd, log, self.a.timeout, env=self.env)
                        trip_after = self.core_round_trip() if t > 1 else None
                        js = [ln for ln in text.splitlines() if ln.startswith("{")]
                        if rc == 0 and js:
                            samples.setdefault(key, []).append(
                                dict(json.loads(js[-1]), round_trip_ns=trip, round_trip_after_ns=trip_after))
                        else:
                            errors[key] = self.fail_text(rc, text, self.a.timeout)
                for key, js in samples.items():
                    if key in errors:
                        continue
                    res["runs"][key] = {"median_ms": float(np.median([j["median_ms"] for j in js])),
                                        "fastest_median_ms": min(j["median_ms"] for j in js),
                                        "min_ms": min(j["min_ms"] for j in js),
                                        "runs": sum(j["runs"] for j in js), "pairs": len(js)}
                    if any(j["round_trip_ns"] is not None for j in js):
                        res["runs"][key]["rounds"] = [{"median_ms": j["median_ms"], "round_trip_ns": j["round_trip_ns"],
                                                       "round_trip_after_ns": j["round_trip_after_ns"]} for j in js]
                partial = dict(res, errors=errors, status="partial")
                write_json(self.result_path(model, "latency"), partial)
        res["errors"] = errors
        res["seconds_per_measurement"] = self.a.lat_seconds
        return res

    def core_round_trip(self):
        """The core probe's round trip in ns, or None (no probe, or it failed)."""
        if not self.core_probe:
            return None
        try:
            out = subprocess.run([self.core_probe], capture_output=True, text=True, timeout=60).stdout
            return float(json.loads(out.strip().splitlines()[-1])["round_trip_ns"])
        except (OSError, ValueError, KeyError, IndexError, subprocess.TimeoutExpired):
            return None

    # -----------------------------------------------------------------------------------------------

    def run_one(self, model, col):
        md = common.model_dir(model)
        meta = read_json(os.path.join(md, "meta.json"))
        rp = self.result_path(model, col)
        old = read_json(rp)
        if old and not self.a.force and old.get("status") != "partial":
            stale = self.a.redo_stale and old.get("ptq_sha256") not in (None, self.ptq_sha)
            if col == "task" and old.get("stamp") != self.task_stamp(model):
                stale = True
            if old.get("model_made") != meta.get("made"):  # the model folder was regenerated since
                stale = True
            if not stale:
                common.log(f"{model} / {col}: cached ({old.get('status')})")
                return old
        w = self.work(model, col)
        common.log(f"{model} / {col}: running (log: {w})")
        t0 = time.time()
        res = {"model": model, "column": col, "ptq": self.ptq, "ptq_version": self.ptq_version,
               "ptq_sha256": self.ptq_sha, "started": time.strftime("%Y-%m-%d %H:%M:%S"), "threads": self.a.threads,
               "model_made": meta.get("made")}
        try:
            if col == "float":
                body = self.col_float(model, md, meta, w)
            elif col.startswith("quant_"):
                body = self.col_quant(model, md, meta, w, col.split("_", 1)[1])
            elif col.startswith("ort_"):
                body = self.col_ort(model, md, meta, w, col.split("_", 1)[1])
            elif col == "baseline":
                body = self.col_baseline(model, md, meta, w)
            elif col == "task":
                body = self.col_task(model, md, meta, w)
            elif col == "latency":
                body = self.col_latency(model, md, meta, w)
            res.update(body)
            res["status"] = "ok"
        except StepError as e:
            res["status"] = "skipped" if (len(e.args) > 1 and isinstance(e.args[1], dict)
                                          and e.args[1].get("skipped")) else "error"
            res["error"] = e.args[0]
            if len(e.args) > 1 and isinstance(e.args[1], dict):
                res.update({k: v for k, v in e.args[1].items() if k not in res})
        except KeyboardInterrupt:
            raise
        except Exception as e:
            res["status"] = "error"
            res["error"] = f"runner: {type(e).__name__}: {str(e)[:500]}"
            res["traceback"] = traceback.format_exc()[-3000:]
        res["step_seconds"] = time.time() - t0
        write_json(rp, res)
        common.log(f"{model} / {col}: {res['status']} in {res['step_seconds']:.0f} s  {summary(col, res)}")
        return res


def summary(col, r):
    if r.get("status") != "ok":
        return r.get("error", "")[:300]
    if col == "float":
        return f"max abs {r.get('max_abs'):.3g}, rel {r.get('rel_err') or 0:.3g}"
    if col.startswith("quant_"):
        s = r.get("sqnr_db")
        return (f"SQNR {s:.1f} dB, {r.get('seconds', 0):.0f} s, {r.get('peak_rss_mb') or 0:.0f} MB RSS, "
                f"size x{r.get('size_ratio', 0):.2f}, float weight ops {r.get('float_weight_ops')}"
                if s is not None else "no SQNR")
    if col.startswith("ort_"):
        v = r.get("vs_ptq") or {}
        return f"vs ptq SQNR {v.get('sqnr_db', float('nan')):.1f} dB, max abs {v.get('max_abs', float('nan')):.3g}"
    if col == "baseline":
        return f"SQNR {r.get('sqnr_db')}"
    if col == "task":
        return json.dumps({k: metrics.headline(r.get("task"), v) for k, v in r.get("sources", {}).items()},
                          ensure_ascii=False)
    if col == "latency":
        return f"{len(r.get('runs', {}))} measurements, {len(r.get('errors', {}))} errors"
    return ""


def available_models():
    base = common.models_dir()
    names = [d for d in os.listdir(base) if common.is_complete(os.path.join(base, d))]

    def key(n):
        stem = re.sub(r"_op\d+$", "", n)
        return (ORDER.index(stem) if stem in ORDER else len(ORDER), n)
    return sorted(names, key=key)


def select_models(spec, avail):
    if not spec:
        return avail
    out = []
    for s in spec.split(","):
        s = s.strip()
        hits = [m for m in avail if m == s or re.sub(r"_op\d+$", "", m) == s]
        if not hits:
            sys.exit(f"no complete model folder matches {s!r}; have: {', '.join(avail) or '(none)'}")
        out += [h for h in hits if h not in out]
    return out


def select_columns(spec, latency):
    if not spec:
        cols = list(DEFAULT_COLUMNS) + (["latency"] if latency else [])
        return cols
    cols = []
    for s in spec.split(","):
        for c in ALIASES.get(s.strip(), [s.strip()]):
            if c not in COLUMNS:
                sys.exit(f"unknown column {c!r}; columns: {', '.join(COLUMNS)} (aliases quant, ort)")
            if c not in cols:
                cols.append(c)
    return [c for c in COLUMNS if c in cols]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", help="model folders or names without _opNN (default: every complete folder)")
    ap.add_argument("--columns", help=f"columns (default: all but latency): {', '.join(COLUMNS)}")
    ap.add_argument("--ptq", default=os.path.join(common.REPO, "build", "ptq"), help="ptq binary (default build/ptq)")
    ap.add_argument("--force", action="store_true", help="re-run the selected (model, column) results")
    ap.add_argument("--redo-stale", action="store_true", help="re-run results made by another ptq binary")
    ap.add_argument("--threads", type=int, default=2, help="threads for ptq quantize/run and ONNX Runtime runs")
    ap.add_argument("--timeout", type=int, default=7200, help="seconds per step (default 7200)")
    ap.add_argument("--set", action="append", help="extra --set key=value for ptq quantize (recorded)")
    ap.add_argument("--latency", action="store_true", help="add the latency column to the default columns")
    ap.add_argument("--lat-batches", default="1,8")
    ap.add_argument("--lat-threads", default="1,2")
    ap.add_argument("--lat-seconds", type=float, default=3.0)
    ap.add_argument("--lat-models", default="float,qoperator,qdq", help="which of float,qoperator,qdq to time")
    ap.add_argument("--lat-pairs", type=int, default=1,
                    help="rounds in which every measurement of a batch size and thread count (ptq and ONNX Runtime, "
                         "each model form) is taken in turn (medians of their medians)")
    ap.add_argument("--core-probe", default=None,
                    help="program printing {\"round_trip_ns\": ...} for two cores, run before each timed run on more "
                         "than one thread and recorded with it (default: tests/ptq_core_latency_bench beside --ptq, "
                         "when built; '' for none)")
    ap.add_argument("--list", action="store_true", help="list the models and cached results, then exit")
    a = ap.parse_args()
    avail = available_models()
    models = select_models(a.models, avail)
    cols = select_columns(a.columns, a.latency)
    if a.list:
        for m in models:
            st = []
            for c in COLUMNS:
                r = read_json(os.path.join(common.zoo_dir(), "results", m, c + ".json"))
                st.append(f"{c}={r.get('status') if r else '-'}")
            print(m, " ".join(st))
        return
    run = Runner(a)
    common.log(f"ptq {run.ptq} ({run.ptq_version}, sha256 {run.ptq_sha[:12]}); zoo {run.zoo}")
    common.log(f"models: {', '.join(models)}; columns: {', '.join(cols)}")
    n_err = 0
    for m in models:
        for c in cols:
            r = run.run_one(m, c)
            n_err += r.get("status") == "error"
    common.log(f"done; {n_err} step(s) with errors. Table: /usr/bin/python3 scripts/zoo/zoo_table.py")


if __name__ == "__main__":
    common.main_guard(main)
