"""Shared helpers of the model zoo: the cache folder, the model folder layout, .npy splits, natural image
crops, ONNX Runtime runs through Node, model file sizes and the opset-13 conversion for old models.
Run everything with Debian's /usr/bin/python3 (python3-torch, python3-onnx, python3-sklearn, python3-pil)."""
import json
import os
import shutil
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)


def zoo_dir():
    """The cache folder: $PTQ_ZOO_DIR, default ~/.cache/ptq-zoo (never inside the git tree)."""
    d = os.environ.get("PTQ_ZOO_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "ptq-zoo")
    os.makedirs(d, exist_ok=True)
    return d


def models_dir():
    d = os.path.join(zoo_dir(), "models")
    os.makedirs(d, exist_ok=True)
    return d


def model_dir(name):
    return os.path.join(models_dir(), name)


def ort_node_path():
    """The onnxruntime-node package folder: $ORT_NODE, else the worktree's or the main checkout's install."""
    cands = [os.environ.get("ORT_NODE"),
             os.path.join(REPO, "scripts", "ort", "node_modules", "onnxruntime-node"),
             "/work/main/scripts/ort/node_modules/onnxruntime-node"]
    for c in cands:
        if c and os.path.isdir(c):
            return os.path.abspath(c)
    raise RuntimeError("onnxruntime-node not found: set ORT_NODE to its folder "
                       "(cd scripts/ort && npm install --ignore-scripts)")


def node_env():
    env = dict(os.environ)
    ort = ort_node_path()
    env["ORT_NODE"] = ort
    nm = os.path.dirname(ort)
    env["NODE_PATH"] = nm + (os.pathsep + env["NODE_PATH"] if env.get("NODE_PATH") else "")
    return env


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


# ---------------------------------------------------------------------------------------------------
# The model folder: model.onnx, calib/, eval/, ref/, meta.json (written last: its presence = complete)

def is_complete(folder):
    meta = os.path.join(folder, "meta.json")
    if not os.path.exists(meta):
        return False
    try:
        m = json.load(open(meta))
    except ValueError:
        return False
    return m.get("complete") is True and os.path.exists(os.path.join(folder, "model.onnx"))


def fresh(folder):
    """Starts a model folder from scratch (an incomplete earlier attempt is removed)."""
    if os.path.isdir(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)


def write_split(folder, arrays):
    """arrays: {input_name: ndarray with samples on axis 0} -> folder/<name>.npy"""
    os.makedirs(folder, exist_ok=True)
    for k, v in arrays.items():
        np.save(os.path.join(folder, sanitize(k) + ".npy"), np.ascontiguousarray(v))


def sanitize(name):
    """ptq's SanitizeFileName: characters that cannot be in a file name become '_'."""
    if name == ".":
        return "_"
    if name == "..":
        return "__"
    s = "".join("_" if (c in '/\\:*?"<>|' or ord(c) < 32) else c for c in name)
    return s or "_"


def link_split(src, dst):
    """Hard-links the .npy files of one split folder into another (same data, no extra disk)."""
    os.makedirs(dst, exist_ok=True)
    for f in os.listdir(src):
        s, d = os.path.join(src, f), os.path.join(dst, f)
        if os.path.exists(d):
            os.remove(d)
        try:
            os.link(s, d)
        except OSError:
            shutil.copyfile(s, d)


def write_meta(folder, meta):
    meta = dict(meta)
    meta["complete"] = True
    meta["made"] = time.strftime("%Y-%m-%d %H:%M:%S")
    tmp = os.path.join(folder, ".meta.json.tmp")
    with open(tmp, "w") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
    os.replace(tmp, os.path.join(folder, "meta.json"))


def split_info(arrays):
    return {k: {"shape": list(v.shape), "dtype": str(v.dtype)} for k, v in arrays.items()}


def load_split(folder):
    return {f[:-4]: np.load(os.path.join(folder, f)) for f in sorted(os.listdir(folder)) if f.endswith(".npy")}


# ---------------------------------------------------------------------------------------------------
# Natural images

_SAMPLES = None


def sample_images():
    """sklearn's two sample photographs (china.jpg, flower.jpg), uint8 HxWx3 RGB."""
    global _SAMPLES
    if _SAMPLES is None:
        from sklearn.datasets import load_sample_images
        _SAMPLES = [np.asarray(im, np.uint8) for im in load_sample_images().images]
    return _SAMPLES


def random_crop(rng, size, scale=(0.08, 1.0), ratio=(3 / 4, 4 / 3)):
    """A RandomResizedCrop of a sample photograph with a random horizontal flip and a mild brightness /
    contrast change; uint8 size x size x 3 RGB."""
    from PIL import Image
    imgs = sample_images()
    img = imgs[rng.integers(len(imgs))]
    h, w = img.shape[:2]
    for _ in range(20):
        area = h * w * rng.uniform(*scale)
        r = np.exp(rng.uniform(np.log(ratio[0]), np.log(ratio[1])))
        cw, ch = int(round(np.sqrt(area * r))), int(round(np.sqrt(area / r)))
        if 0 < cw <= w and 0 < ch <= h:
            break
    else:
        cw, ch = min(h, w), min(h, w)
    x0, y0 = rng.integers(0, w - cw + 1), rng.integers(0, h - ch + 1)
    crop = Image.fromarray(img[y0:y0 + ch, x0:x0 + cw]).resize((size, size), Image.BILINEAR)
    a = np.asarray(crop, np.float32)
    if rng.random() < 0.5:
        a = a[:, ::-1]
    a = (a - 128.0) * rng.uniform(0.8, 1.2) + 128.0 + rng.uniform(-20, 20)
    return np.clip(a, 0, 255).astype(np.uint8)


def imagenet_batch(rng, n, size=224, scale=(0.08, 1.0)):
    """n crops as float32 NCHW, ImageNet mean/std normalised."""
    out = np.empty((n, 3, size, size), np.float32)
    for i in range(n):
        a = random_crop(rng, size, scale).astype(np.float32) / 255.0
        out[i] = ((a - IMAGENET_MEAN) / IMAGENET_STD).transpose(2, 0, 1)
    return out


# ---------------------------------------------------------------------------------------------------
# ONNX Runtime (Node) and model files

def ort_run(model, in_dir, out_dir, threads=1, timeout=3600):
    """Runs a model in ONNX Runtime on a folder of .npy inputs (one batch); writes <output>.npy."""
    script = os.path.join(HERE, "ort_run.js")
    cmd = ["node", script, model, in_dir, out_dir, "--threads", str(threads)]
    r = subprocess.run(cmd, env=node_env(), capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError("ort_run failed: " + (r.stderr or r.stdout).strip()[-2000:])
    return out_dir


def external_files(model_path):
    """External data files a model refers to (relative locations, unique)."""
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    locs = set()

    def visit_tensor(t):
        if t.data_location == onnx.TensorProto.EXTERNAL:
            for kv in t.external_data:
                if kv.key == "location":
                    locs.add(kv.value)

    def visit_graph(g):
        for t in g.initializer:
            visit_tensor(t)
        for n in g.node:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.TENSOR:
                    visit_tensor(a.t)
                elif a.type == onnx.AttributeProto.GRAPH:
                    visit_graph(a.g)
                elif a.type == onnx.AttributeProto.GRAPHS:
                    for sg in a.graphs:
                        visit_graph(sg)
    visit_graph(m.graph)
    return sorted(locs)


def model_bytes(model_path):
    """Bytes of the model file plus its external data files."""
    total = os.path.getsize(model_path)
    d = os.path.dirname(os.path.abspath(model_path))
    for loc in external_files(model_path):
        p = os.path.join(d, loc)
        if os.path.exists(p):
            total += os.path.getsize(p)
    return total


def opset_of(model_path):
    import onnx
    m = onnx.load(model_path, load_external_data=False)
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


def observed_shapes(model_path, in_dir, work):
    """Runs the model in ONNX Runtime with every node output exposed, on one sample and on two; returns
    {tensor: (dtype, shape)} where a dimension that differs between the two runs (it follows the batch) is a
    string (a symbolic dimension) and the others are ints."""
    import onnx
    from onnx import helper
    m = onnx.load(model_path)
    have = {o.name for o in m.graph.output}
    for n in m.graph.node:
        if n.op_type == "Constant":
            continue
        for o in n.output:
            if o and o not in have:
                m.graph.output.append(helper.make_empty_tensor_value_info(o))
                have.add(o)
    os.makedirs(work, exist_ok=True)
    p = os.path.join(work, "all_outputs.onnx")
    onnx.save(m, p)
    runs = []
    for k in (1, 2):
        sub = os.path.join(work, f"samples_{k}")
        os.makedirs(sub, exist_ok=True)
        for f in os.listdir(in_dir):
            if f.endswith(".npy"):
                np.save(os.path.join(sub, f), np.load(os.path.join(in_dir, f))[:k])
        outd = os.path.join(work, f"all_out_{k}")
        ort_run(p, sub, outd)
        shapes = {}
        for n in m.graph.output:
            f = os.path.join(outd, sanitize(n.name) + ".npy")
            if os.path.exists(f):
                a = np.load(f, mmap_mode="r")
                shapes[n.name] = (a.dtype, a.shape)
        shutil.rmtree(outd, ignore_errors=True)
        runs.append(shapes)
    os.remove(p)
    res = {}
    for name, (dt, s1) in runs[0].items():
        s2 = runs[1].get(name, (dt, s1))[1]
        if len(s1) != len(s2):
            continue
        res[name] = (dt, [a if a == b else f"batch_x{a}" for a, b in zip(s1, s2)])
    return res


def convert_to_opset13(model_path, in_dir, out_path, work):
    """Converts an opset < 13 model to opset 13 with onnx's version converter, after writing the shapes
    ONNX Runtime observed into value_info (the converter needs ranks that static shape inference cannot find
    in real exports; dimensions that follow the batch are symbolic). The value_info is dropped again from the
    converted model (ONNX Runtime would otherwise plan with the observed sizes)."""
    import onnx
    from onnx import helper, version_converter
    m = onnx.load(model_path)
    shapes = observed_shapes(model_path, in_dir, work)
    known = {v.name for v in m.graph.value_info} | {i.name for i in m.graph.input} | {o.name for o in m.graph.output}
    for name, (dt, shape) in shapes.items():
        if name in known:
            continue
        elem = helper.np_dtype_to_tensor_dtype(np.dtype(dt)) if hasattr(helper, "np_dtype_to_tensor_dtype") \
            else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
        m.graph.value_info.append(helper.make_tensor_value_info(name, elem, list(shape)))
    c = version_converter.convert_version(m, 13)
    del c.graph.value_info[:]
    onnx.checker.check_model(c)
    onnx.save(c, out_path)
    return out_path


def run_cmd(cmd, log_path, timeout, env=None, cwd=None):
    """Runs a command in its own process group with stdout+stderr to log_path; kills the group on timeout.
    Returns (returncode or None on timeout, seconds, tail of the log)."""
    t0 = time.time()
    with open(log_path, "w") as lf:
        lf.write("$ " + " ".join(cmd) + "\n")
        lf.flush()
        p = subprocess.Popen(cmd, stdout=lf, stderr=subprocess.STDOUT, env=env, cwd=cwd, start_new_session=True)
        try:
            rc = p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            import signal
            try:
                os.killpg(p.pid, signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
            except ProcessLookupError:
                pass
            rc = None
        except BaseException:
            import signal
            try:
                os.killpg(p.pid, signal.SIGTERM)
                p.wait(timeout=20)
            except Exception:
                pass
            raise
    dt = time.time() - t0
    with open(log_path, errors="replace") as lf:
        text = lf.read()
    return rc, dt, text


def sqnr_db(ref, got):
    ref = ref.astype(np.float64)
    err = np.sum((ref - got.astype(np.float64)) ** 2)
    sig = np.sum(ref ** 2)
    if err == 0:
        return float("inf")
    if sig == 0:
        return float("-inf")
    return float(10 * np.log10(sig / err))


def main_guard(fn):
    try:
        fn()
    except KeyboardInterrupt:
        sys.exit(130)
