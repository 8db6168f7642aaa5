#!/usr/bin/python3
"""Renders the cached results of run_zoo.py as Markdown: one row per model, then the failures in full, then
the latency table (where measured).
    /usr/bin/python3 scripts/zoo/zoo_table.py [--models a,b] [--out FILE]"""
import argparse
import json
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import metrics  # noqa: E402
from run_zoo import COLUMNS, available_models, read_json, select_models  # noqa: E402


def db(v):
    if v is None:
        return "-"
    if isinstance(v, str):
        v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return f"{v:.1f}"


def mb(b):
    return "-" if b is None else f"{b / 1e6:.1f}"


def short(text, n=70):
    text = re.sub(r"\s+", " ", text or "").strip()
    text = text.replace("|", "/")
    return text if len(text) <= n else text[:n - 1] + "…"


def tail(text, n):
    text = (text or "").replace("|", "/")
    return text if len(text) <= n else "…" + text[-(n - 1):]


class Table:
    def __init__(self, models):
        self.zoo = common.zoo_dir()
        self.models = models
        self.failures = []
        self.tags = {}

    def res(self, m, c):
        return read_json(os.path.join(self.zoo, "results", m, c + ".json"))

    def fail_cell(self, m, c, r):
        """The first cell of a failed (model, column) shows the short error text, later ones only its tag."""
        word = "skipped" if r.get("status") == "skipped" else "FAIL"
        if (m, c) in self.tags:
            return f"{word} [{self.tags[(m, c)]}]"
        self.failures.append((m, c, r.get("status"), r.get("error", "")))
        tag = self.tags[(m, c)] = f"F{len(self.failures)}"
        return f"{word} [{tag}]: {short(r.get('error'), 60)}"

    def cell(self, m, c, fn):
        r = self.res(m, c)
        if r is None:
            return "not run"
        if r.get("status") != "ok":
            return self.fail_cell(m, c, r)
        try:
            return fn(r)
        except Exception as e:  # a malformed result must not stop the table
            return f"? ({type(e).__name__})"

    def row(self, m):
        meta = read_json(os.path.join(common.model_dir(m), "meta.json")) or {}
        task = meta.get("task")
        cells = [m, str(meta.get("opset", "-")), mb(meta.get("model_bytes"))]
        cells.append(self.cell(m, "float", lambda r: f"{r['max_abs']:.2g} ({r['rel_err']:.1g})"))
        for fmt in ("qoperator", "qdq"):
            cells.append(self.cell(m, "quant_" + fmt, lambda r: db(r.get("sqnr_db"))))
        cells.append(self.cell(m, "baseline", lambda r: db(r.get("sqnr_db"))))
        for fmt in ("qoperator", "qdq"):
            cells.append(self.cell(m, "quant_" + fmt, lambda r: f"{r['seconds']:.0f} s, {r['peak_rss_mb'] / 1024:.2f} GB"
                                   if r.get("peak_rss_mb") else f"{r['seconds']:.0f} s"))
        for fmt in ("qoperator", "qdq"):
            cells.append(self.cell(m, "quant_" + fmt, lambda r: f"{mb(r['int8_bytes'])} ({r['size_ratio']:.2f})"))
        for fmt in ("qoperator", "qdq"):
            cells.append(self.cell(m, "ort_" + fmt, lambda r: (
                f"{db((r.get('vs_ptq') or {}).get('sqnr_db'))} dB, {(r.get('vs_ptq') or {}).get('max_abs', float('nan')):.2g}"
                if r.get("vs_ptq") else "loads; no ptq output")))
        for fmt in ("qoperator", "qdq"):
            cells.append(self.cell(m, "quant_" + fmt, lambda r: (
                f"{r['float_weight_ops']}/{r['weight_ops_in_float_model']}" +
                (f" ({', '.join(tail(n, 36) for n in r['float_weight_ops_names'][:2])}"
                 f"{', …' if r['float_weight_ops'] > 2 else ''})" if r['float_weight_ops'] else ""))))
        cells.append(self.task_cell(m, task, meta))
        ys = (meta.get("ref_stats") or {}).get("output_sqnr_db_at_40db_input_noise")
        cells.append(db(ys) if ys is not None else "-")
        return cells

    def task_cell(self, m, task, meta):
        r = self.res(m, "task")
        if r is None:
            return "not run"
        if r.get("status") != "ok":
            return self.fail_cell(m, "task", r)
        src = r.get("sources") or {}
        if not src:
            return r.get("note", "-")
        parts = []
        names = {"ptq_qoperator": "QOp", "ptq_qdq": "QDQ", "baseline": "base", "ort_qoperator": "ORT-QOp",
                 "ort_qdq": "ORT-QDQ"}
        for k in ("ptq_qoperator", "ptq_qdq", "baseline"):
            if k not in src:
                continue
            v = src[k]
            if not v or "error" in (v or {}):
                parts.append(f"{names[k]} ?")
            elif task == "classification":
                parts.append(f"{names[k]} {v['top1_agreement']:.2f}")
            elif task == "segmentation":
                parts.append(f"{names[k]} {v['pixel_agreement']:.3f}")
            elif task == "language_model":
                parts.append(f"{names[k]} {v['next_token_agreement']:.3f}")
            elif task == "ocr_rec":
                parts.append(f"{names[k]} exact {v['int8_exact']:.2f} CER {v['int8_cer']:.3f}")
            elif task == "ocr_det":
                parts.append(f"{names[k]} {v['matched_share']:.3f}" if v.get("matched_share") is not None
                             else f"{names[k]} -")
        pre = {"classification": "top-1 agree: ", "segmentation": "pixel agree: ",
               "language_model": "next-token agree: ", "ocr_det": "boxes matched: "}.get(task, "")
        if task == "ocr_rec":
            f = next(iter(src.values()))
            pre = f"float exact {f['float_exact']:.2f} CER {f['float_cer']:.3f}; "
        return pre + "; ".join(parts)

    def main_table(self):
        head = ["model", "opset", "float MB", "float check: max abs (rel)", "SQNR dB QOp", "SQNR dB QDQ",
                "SQNR dB baseline", "quantize QOp: time, peak RSS", "quantize QDQ: time, peak RSS",
                "int8 MB QOp (ratio)", "int8 MB QDQ (ratio)", "ORT vs ptq QOp: SQNR, max abs",
                "ORT vs ptq QDQ: SQNR, max abs", "float weight ops left QOp", "float weight ops left QDQ",
                "task (float vs int8)", "float yardstick dB"]
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for m in self.models:
            lines.append("| " + " | ".join(self.row(m)) + " |")
        return "\n".join(lines)

    def latency_table(self):
        rows = []
        for m in self.models:
            r = self.res(m, "latency")
            if not r or not r.get("runs"):
                continue
            keys = sorted({tuple(k.split("/")[2:]) for k in r["runs"]}, key=lambda bt: (int(bt[0][1:]), int(bt[1][1:])))
            for kind in ("float", "qoperator", "qdq"):
                for rt in ("ptq", "ort"):
                    vals = [r["runs"].get(f"{rt}/{kind}/{b}/{t}") for b, t in keys]
                    if not any(vals):
                        continue
                    rows.append((m, kind, "ptq" if rt == "ptq" else "ONNX Runtime", keys,
                                 [f"{v['median_ms']:.2f}" if v else "-" for v in vals]))
        if not rows:
            return ""
        out = []
        last_keys = None
        for m, kind, rt, keys, vals in rows:
            if keys != last_keys:
                head = ["model", "model form", "runtime"] + [f"batch {b[1:]}, {t[1:]} thread(s) ms" for b, t in keys]
                out += ["", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
                last_keys = keys
            out.append("| " + " | ".join([m, kind, rt] + vals) + " |")
        return "\n".join(out)

    def ratio_table(self, field="median_ms"):
        """Issue 17's targets per model and configuration: ptq int8 / ORT int8 (QOperator) <= 0.9;
        ptq int8 / ptq float <= 0.6 or no worse than ORT's own int8 / float; ptq float / ORT float <= 1.2;
        ptq QDQ / ptq QOperator <= 1.1; and each runtime's 2-thread speed-up at batch 1. `field`: median_ms
        (the median of the rounds' medians) or fastest_median_ms (the fastest round's)."""
        head = ["model", "batch, threads", "ptq int8 / ORT int8", "ptq int8 / ptq float (ORT's int8 / float)",
                "ptq float / ORT float", "ptq QDQ / ptq QOp"]
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        speedups = []
        for m in self.models:
            r = self.res(m, "latency")
            if not r or not r.get("runs"):
                continue
            runs = r["runs"]

            def ms(rt, kind, b, t):
                v = runs.get(f"{rt}/{kind}/b{b}/t{t}")
                return v.get(field) if v else None

            def ratio(x, y):
                return f"{x / y:.2f}" if x and y else "-"

            for b in (1, 8):
                for th in (1, 2):
                    pq, oq, pf, of, pd = (ms("ptq", "qoperator", b, th), ms("ort", "qoperator", b, th),
                                          ms("ptq", "float", b, th), ms("ort", "float", b, th), ms("ptq", "qdq", b, th))
                    if not any((pq, oq, pf, of)):
                        continue
                    out.append("| " + " | ".join([m, f"{b}, {th}", ratio(pq, oq), f"{ratio(pq, pf)} ({ratio(oq, of)})",
                                                  ratio(pf, of), ratio(pd, pq)]) + " |")
            sp = [ratio(ms(rt, k, 1, 1), ms(rt, k, 1, 2)) for rt in ("ptq", "ort") for k in ("float", "qoperator")]
            speedups.append("| " + " | ".join([m] + sp) + " |")
        if len(out) == 2:
            return ""
        sh = ["model", "ptq float", "ptq int8", "ORT float", "ORT int8"]
        out += ["", "Two threads against one, batch 1 (speed-up):", "",
                "| " + " | ".join(sh) + " |", "|" + "---|" * len(sh)] + speedups
        return "\n".join(out)

    # A core round trip below this many ns: the two cores share an L3 cache (about 50 ns on the Zen 4 VM, about 350
    # when they do not).
    ONE_L3_NS = 150

    def state_table(self):
        """Two threads against one at batch 1 and 8, the two-thread runs grouped by the cores' state: one L3 where
        the core probe read below ONE_L3_NS before and after the run, two L3s where it read above both times (runs
        whose probes disagree are left out). Each cell: one thread's median over the median of those rounds, and
        how many rounds that is."""
        head = ["model", "batch", "state", "ptq float", "ptq int8", "ORT float", "ORT int8"]
        out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for m in self.models:
            runs = (self.res(m, "latency") or {}).get("runs") or {}
            for b in (1, 8):
                for state, one in (("one L3", True), ("two L3s", False)):
                    cells = []
                    for rt, kind in (("ptq", "float"), ("ptq", "qoperator"), ("ort", "float"), ("ort", "qoperator")):
                        t1 = (runs.get(f"{rt}/{kind}/b{b}/t1") or {}).get("median_ms")
                        rounds = (runs.get(f"{rt}/{kind}/b{b}/t2") or {}).get("rounds") or []
                        sel = [x["median_ms"] for x in rounds
                               if x.get("round_trip_ns") is not None and x.get("round_trip_after_ns") is not None
                               and (x["round_trip_ns"] < self.ONE_L3_NS) == one
                               and (x["round_trip_after_ns"] < self.ONE_L3_NS) == one]
                        cells.append(f"{t1 / statistics.median(sel):.2f} ({len(sel)})" if t1 and sel else "-")
                    if any(c != "-" for c in cells):
                        out.append("| " + " | ".join([m, str(b), state] + cells) + " |")
        return "\n".join(out) if len(out) > 2 else ""

    def render(self):
        parts = [self.main_table()]
        lat = self.latency_table()
        if lat:
            parts.append("\nLatency (median ms; `ptq bench` and ONNX Runtime 1.30 `ort_bench.js`):" + lat)
            parts.append("\nLatency ratios (issue 17's targets), medians of the rounds' medians:\n\n"
                         + self.ratio_table())
            kept = [v for m in self.models for v in ((self.res(m, "latency") or {}).get("runs") or {}).values()]
            if kept and all("fastest_median_ms" in v for v in kept):  # results of older runs lack it
                parts.append("\nThe same ratios between each side's fastest round (median of one measurement):\n\n"
                             + self.ratio_table("fastest_median_ms"))
            states = self.state_table()
            if states:
                parts.append("\nTwo threads against one by the cores' state (probed before and after each two-thread "
                             "run; rounds in brackets):\n\n" + states)
        if self.failures:
            parts.append("\nFailures:\n")
            for i, (m, c, st, err) in enumerate(self.failures, 1):
                err = re.sub(r"\s+", " ", err or "").strip().replace("`", "'")
                parts.append(f"- F{i} {m} / {c} ({st}): `{err}`")
        binaries = set()
        for m in self.models:
            for c in COLUMNS:
                r = self.res(m, c)
                if r and r.get("ptq_sha256"):
                    binaries.add((r.get("ptq_version"), r["ptq_sha256"][:12]))
        parts.append("\nptq binaries: " + ", ".join(f"{v} (sha256 {s})" for v, s in sorted(binaries)))
        return "\n".join(parts) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models")
    ap.add_argument("--out")
    a = ap.parse_args()
    models = select_models(a.models, available_models())
    models = [m for m in models if os.path.isdir(os.path.join(common.zoo_dir(), "results", m))]
    text = Table(models).render()
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
