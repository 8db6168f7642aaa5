#!/usr/bin/python3
"""Peak memory of `ptq quantize` per stage on generated models whose weights are in external data.

usage: /usr/bin/python3 scripts/bench_memory.py PTQ [PTQ ...] [--models mlp,transformer] [--dir DIR]
                                                [--threads N] [--set key=value]... [--small] [--zoo NAME,...]

Generates each model once into DIR (default ~/.cache/ptq-bench; nothing in git), its weights written
tensor by tensor into one external data file so that Python never holds the model:

  mlp          20 residual blocks x + W2·relu(W1·x + b1) + b2, d = 2048, hidden 8192: 2.7 GB of weights
  transformer  a post-LN BERT-shaped encoder (opset 17, LayerNormalization), 24 layers, d = 1536,
               24 heads, FFN 6144, vocabulary 8192: 2.7 GB of weights

then runs `ptq quantize` on each with every binary given (an old and a new ptq side by side), and
prints one row per (model, binary): the process's peak RSS, wall time, exit code, and the peak RSS and
wall time of each stage: the peak as ptq reports it on stderr ("ptq: memory: <stage>: peak RSS" after
each stage; ptq starts a new peak at each stage, so the process's peak is the largest of them), or for
a ptq without these lines VmRSS sampled every 20 ms between its "[k/4]" stage lines (and the process's
peak from wait4); the time between the stage lines. The int8 model is then loaded by onnx's checker
(by path, external data included). --zoo NAME,... runs models of the zoo cache (scripts/zoo) as they are.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import onnx
from onnx import TensorProto, helper

GB = 1e9


class DataWriter:
    """Writes tensors one after another into one external data file (offsets as onnx's writer makes
    them: back to back, 4-byte multiples for float32)."""

    def __init__(self, folder, name, external=True):
        self.name = name
        self.f = open(os.path.join(folder, name), "wb") if external else None
        self.offset = 0

    def tensor(self, name, array):
        array = np.ascontiguousarray(array)
        t = TensorProto()
        t.name = name
        t.data_type = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[array.dtype]
        t.dims.extend(array.shape)
        data = array.tobytes()
        if len(data) < 1024 or self.f is None:
            t.raw_data = data
            return t
        self.f.write(data)
        t.data_location = TensorProto.EXTERNAL
        for k, v in (("location", self.name), ("offset", str(self.offset)), ("length", str(len(data)))):
            e = t.external_data.add()
            e.key, e.value = k, v
        self.offset += len(data)
        return t

    def close(self):
        if self.f:
            self.f.close()


def random_matrix(rng, rows, cols):
    return (rng.standard_normal((rows, cols), dtype=np.float32) / np.sqrt(rows)).astype(np.float32)


def make_mlp(folder, small, layers=20, d=2048, hidden=8192):
    rng = np.random.default_rng(0)
    layers = 2 if small else layers
    w = DataWriter(folder, "model.weights", not small)
    inits, nodes = [], []
    x = "x"
    for i in range(layers):
        p = f"block{i}."
        inits += [w.tensor(p + "w1", random_matrix(rng, d, hidden)),
                  w.tensor(p + "b1", rng.standard_normal(hidden, dtype=np.float32) * 0.1),
                  w.tensor(p + "w2", random_matrix(rng, hidden, d) * 0.5),
                  w.tensor(p + "b2", rng.standard_normal(d, dtype=np.float32) * 0.1)]
        nodes += [helper.make_node("MatMul", [x, p + "w1"], [p + "h"], name=p + "fc1"),
                  helper.make_node("Add", [p + "h", p + "b1"], [p + "hb"], name=p + "fc1_bias"),
                  helper.make_node("Relu", [p + "hb"], [p + "r"], name=p + "relu"),
                  helper.make_node("MatMul", [p + "r", p + "w2"], [p + "o"], name=p + "fc2"),
                  helper.make_node("Add", [p + "o", p + "b2"], [p + "ob"], name=p + "fc2_bias"),
                  helper.make_node("Add", [x, p + "ob"], [p + "y"], name=p + "residual")]
        x = p + "y"
    w.close()
    nodes.append(helper.make_node("Identity", [x], ["y"], name="output"))
    graph = helper.make_graph(nodes, "mlp_stack", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", d])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", d])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="bench_memory.py")
    onnx.save(model, os.path.join(folder, "model.onnx"))
    data = {"x": lambda n: rng.standard_normal((n, d), dtype=np.float32)}
    return data


def make_transformer(folder, small, layers=24, d=1536, heads=24, ffn=6144, vocab=8192, seq=64):
    rng = np.random.default_rng(1)
    layers = 3 if small else layers
    w = DataWriter(folder, "model.weights", not small)
    dh = d // heads
    inits, nodes = [], []

    def const(name, array):
        inits.append(w.tensor(name, np.asarray(array)))
        return name

    def node(op, ins, outs, name, **attrs):
        nodes.append(helper.make_node(op, ins, outs, name=name, **attrs))
        return outs[0]

    heads_shape = const("heads_shape", np.array([0, 0, heads, dh], dtype=np.int64))
    merge_shape = const("merge_shape", np.array([0, 0, d], dtype=np.int64))
    scale = const("sqrt_dh", np.array(np.sqrt(dh), dtype=np.float32))
    emb = node("Gather", [const("word_embeddings", rng.standard_normal((vocab, d), dtype=np.float32) * 0.5), "input_ids"],
               ["emb/words"], "embeddings/gather")
    emb = node("Add", [emb, const("position_embeddings", rng.standard_normal((seq, d), dtype=np.float32) * 0.1)],
               ["emb/sum"], "embeddings/add")
    x = node("LayerNormalization", [emb, const("emb_ln.g", np.ones(d, np.float32)), const("emb_ln.b", np.zeros(d, np.float32))],
             ["emb/ln"], "embeddings/ln", axis=-1, epsilon=1e-12)
    for i in range(layers):
        p = f"layer{i}/"

        def linear(inp, rows, cols, tag):
            m = node("MatMul", [inp, const(p + tag + ".w", random_matrix(rng, rows, cols))], [p + tag + "/mm"], p + tag + "/MatMul")
            return node("Add", [m, const(p + tag + ".b", rng.standard_normal(cols, dtype=np.float32) * 0.02)],
                        [p + tag + "/out"], p + tag + "/Add")

        def split_heads(t, tag, perm):
            r = node("Reshape", [t, heads_shape], [p + tag + "/heads"], p + tag + "/Reshape")
            return node("Transpose", [r], [p + tag + "/t"], p + tag + "/Transpose", perm=perm)

        q = split_heads(linear(x, d, d, "q"), "q", [0, 2, 1, 3])
        k = split_heads(linear(x, d, d, "k"), "k", [0, 2, 3, 1])
        v = split_heads(linear(x, d, d, "v"), "v", [0, 2, 1, 3])
        s = node("MatMul", [q, k], [p + "scores"], p + "scores/MatMul")
        s = node("Div", [s, scale], [p + "scaled"], p + "scores/Div")
        a = node("Softmax", [s], [p + "probs"], p + "Softmax", axis=-1)
        c = node("MatMul", [a, v], [p + "context"], p + "context/MatMul")
        c = node("Transpose", [c], [p + "context/t"], p + "context/Transpose", perm=[0, 2, 1, 3])
        c = node("Reshape", [c, merge_shape], [p + "context/merged"], p + "context/Reshape")
        o = linear(c, d, d, "o")
        x = node("Add", [x, o], [p + "attn_res"], p + "attn_res")
        x = node("LayerNormalization", [x, const(p + "ln1.g", np.ones(d, np.float32)), const(p + "ln1.b", np.zeros(d, np.float32))],
                 [p + "ln1"], p + "ln1", axis=-1, epsilon=1e-12)
        h = linear(x, d, ffn, "fc1")
        h = node("Relu", [h], [p + "fc1/relu"], p + "fc1/Relu")
        h = linear(h, ffn, d, "fc2")
        x = node("Add", [x, h], [p + "ffn_res"], p + "ffn_res")
        x = node("LayerNormalization", [x, const(p + "ln2.g", np.ones(d, np.float32)), const(p + "ln2.b", np.zeros(d, np.float32))],
                 [p + "ln2"], p + "ln2", axis=-1, epsilon=1e-12)
    w.close()
    nodes.append(helper.make_node("Identity", [x], ["hidden"], name="output"))
    graph = helper.make_graph(nodes, "encoder", [helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", seq])],
                              [helper.make_tensor_value_info("hidden", TensorProto.FLOAT, ["batch", seq, d])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="bench_memory.py")
    onnx.save(model, os.path.join(folder, "model.onnx"))
    return {"input_ids": lambda n: rng.integers(0, vocab, (n, seq), dtype=np.int64)}


MODELS = {"mlp": (make_mlp, 16), "transformer": (make_transformer, 4)}


def generate(name, folder, small):
    if os.path.exists(os.path.join(folder, "done")):
        return
    os.makedirs(folder, exist_ok=True)
    make, samples = MODELS[name]
    t0 = time.time()
    data = make(folder, small)
    for split in ("calib", "eval"):
        os.makedirs(os.path.join(folder, split), exist_ok=True)
        for k, gen in data.items():
            np.save(os.path.join(folder, split, k + ".npy"), gen(samples))
    open(os.path.join(folder, "done"), "w").close()
    size = sum(os.path.getsize(os.path.join(folder, f)) for f in ("model.onnx", "model.weights")
               if os.path.exists(os.path.join(folder, f)))
    print(f"generated {name}: {size / GB:.2f} GB in {time.time() - t0:.0f} s ({folder})", flush=True)


STAGES = ["calibration", "rewrite", "validation", "writing"]  # ptq quantize's [k/4] stages


def run(ptq, name, folder, work, threads, sets):
    os.makedirs(work, exist_ok=True)
    out = os.path.join(work, "model.int8.onnx")
    cfg = {"model": os.path.join(folder, "model.onnx"), "output": out,
           "calibration": {"data": os.path.join(folder, "calib"), "table": os.path.join(work, "table.json")},
           "validation": {"data": os.path.join(folder, "eval"), "report": os.path.join(work, "report.json")}}
    with open(os.path.join(work, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    cmd = [ptq, "quantize", "--config", os.path.join(work, "config.json"), "--threads", str(threads)]
    for s in sets:
        cmd += ["--set", s]
    t0 = time.time()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines, starts = [], []  # stderr, and when each "[k/4]" stage line arrived
    sampled = {}  # stage -> largest VmRSS seen (kB), for a ptq that does not report its stages' peaks
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                with open(f"/proc/{p.pid}/status") as f:
                    kb = next(int(l.split()[1]) for l in f if l.startswith("VmRSS"))
                stage = STAGES[len(starts) - 1] if starts else "start"
                sampled[stage] = max(sampled.get(stage, 0), kb)
            except (OSError, StopIteration):
                pass
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    for line in p.stderr:
        lines.append(line)
        if re.match(r"\[\d/4\] ", line):
            starts.append(time.time())
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    done.set()
    sampler.join()
    seconds = time.time() - t0
    stderr = "".join(lines)
    with open(os.path.join(work, "stderr.log"), "w") as f:
        f.write(stderr)
    reported = {s: float(v) for s, v in re.findall(r"^ptq: memory: (.+?): peak RSS ([\d.]+) GB", stderr, re.M)}
    # ptq reports each stage's peak (it starts a new one per stage, which also resets what the kernel
    # gives wait4: the process's peak is then the largest stage peak); an older ptq is sampled.
    stages = reported or {s: round(kb * 1024 / GB, 2) for s, kb in sampled.items() if s in STAGES}
    whole = max(stages.values()) if reported else usage.ru_maxrss * 1024 / GB
    ends = starts[1:] + [t0 + seconds]
    stage_seconds = {s: round(e - b) for s, b, e in zip(STAGES, starts, ends)}
    errors = [l for l in lines if l.startswith("ptq: error") or l.startswith("ptq: internal")]
    row = {"model": name, "ptq": ptq, "exit": p.returncode, "seconds": round(seconds), "peak_rss_gb": round(whole, 2),
           "stages": stages, "stage_figures": "ptq" if reported else "sampled", "stage_seconds": stage_seconds,
           "error": errors[0].strip() if errors else ""}
    if p.returncode in (0, 3):
        try:
            onnx.checker.check_model(out)
            row["onnx_checker"] = "passed"
        except Exception as e:  # noqa: BLE001 - reported, not raised
            row["onnx_checker"] = f"failed: {e}"
        row["int8_files"] = {f: os.path.getsize(os.path.join(work, f)) for f in sorted(os.listdir(work))
                             if f.startswith("model.int8")}
        with open(os.path.join(work, "report.json")) as f:
            outputs = json.load(f)["outputs"]
        row["worst_sqnr_db"] = round(min(o["sqnr_db"] for o in outputs if o.get("compared")), 1)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ptq", nargs="+")
    ap.add_argument("--models", default="mlp,transformer")
    ap.add_argument("--dir", default=os.path.expanduser("~/.cache/ptq-bench"))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--set", action="append", default=[])
    ap.add_argument("--small", action="store_true",
                    help="2 MLP blocks / 3 encoder layers (about 0.3 GB), weights inside model.onnx: for quick checks")
    ap.add_argument("--zoo", default="", help="also these models of ~/.cache/ptq-zoo/models (scripts/zoo), by name")
    a = ap.parse_args()
    rows = []
    for name in filter(None, a.zoo.split(",")):
        folder = os.path.join(os.path.expanduser("~/.cache/ptq-zoo/models"), name)
        for k, ptq in enumerate(a.ptq):
            row = run(os.path.abspath(ptq), name, folder, os.path.join(a.dir, "work", f"zoo_{name}_{k}"), a.threads, a.set)
            print(json.dumps(row), flush=True)
            rows.append(row)
    for name in filter(None, a.models.split(",")):
        folder = os.path.join(a.dir, "models", name + ("_small" if a.small else ""))
        generate(name, folder, a.small)
        for k, ptq in enumerate(a.ptq):
            work = os.path.join(a.dir, "work", f"{name}{'_small' if a.small else ''}_{k}")
            row = run(os.path.abspath(ptq), name, folder, work, a.threads, a.set)
            print(json.dumps(row), flush=True)
            rows.append(row)
    print("\n| model | ptq | exit | wall s | peak RSS GB | per stage: peak RSS GB (s) | worst SQNR dB |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        stages = ", ".join(f"{s} {v:.2f} ({r['stage_seconds'].get(s, '?')} s)" for s, v in r["stages"].items()) or "-"
        print(f"| {r['model']} | {r['ptq']} | {r['exit']} | {r['seconds']} | {r['peak_rss_gb']} | {stages} | "
              f"{r.get('worst_sqnr_db', '-')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
