"""Task metrics of the model zoo, float against int8 (and float against ground truth where there is one):
- ocr_rec: greedy CTC decoding (argmax per time step, repeats collapsed, blank 0 dropped; key file line i is
  class i+1, the last class is the space; leading/trailing spaces of the decoded text, which the margins of the
  rendered crops produce, are stripped) -> exact-match rate and character error rate (edit distance / ground
  truth length, summed over samples) against the rendered strings, float and int8 side by side;
- ocr_det: probability map > 0.3, one box per 8-connected component of at least 3 x 3 pixels; int8 boxes
  matched one-to-one to float boxes at IoU >= 0.5 (share of float boxes matched); against the ground-truth line
  boxes after DB's unclip (ratio 1.5);
- classification: top-1 agreement with the float model; segmentation: pixel argmax agreement;
- language_model: next-token top-1 agreement (argmax over the vocabulary at every position)."""
import json
import os

import numpy as np


# ---------------------------------------------------------------------------------------------------
# Text recognition

def ctc_greedy(probs, keys):
    """probs [N, T, C] -> list of N strings. Class 0 is blank, class i+1 is keys[i], class len(keys)+1 is ' '."""
    idx = probs.argmax(-1)
    out = []
    for row in idx:
        chars, prev = [], -1
        for c in row.tolist():
            if c != prev and c != 0:
                chars.append(keys[c - 1] if c - 1 < len(keys) else " ")
            prev = c
        out.append("".join(chars))
    return out


def edit_distance(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb))
        prev = cur
    return prev[-1]


def ocr_rec_vs_gt(probs, gts, keys):
    texts = [t.strip() for t in ctc_greedy(probs, keys)]
    errs = sum(edit_distance(t, g) for t, g in zip(texts, gts))
    chars = sum(len(g) for g in gts)
    return {"exact": float(np.mean([t == g for t, g in zip(texts, gts)])), "cer": errs / max(1, chars),
            "samples": len(gts)}


def ocr_rec(ref, got, gts, keys):
    f, q = ocr_rec_vs_gt(ref, gts, keys), ocr_rec_vs_gt(got, gts, keys)
    tf, tq = [t.strip() for t in ctc_greedy(ref, keys)], [t.strip() for t in ctc_greedy(got, keys)]
    return {"float_exact": f["exact"], "int8_exact": q["exact"], "float_cer": f["cer"], "int8_cer": q["cer"],
            "same_text": float(np.mean([a == b for a, b in zip(tf, tq)])), "samples": f["samples"],
            "examples": [[g, a, b] for g, a, b in zip(gts, tf, tq) if a != b][:5]}


# ---------------------------------------------------------------------------------------------------
# Text detection

def det_boxes(prob, thr=0.3, min_size=3):
    """prob [H, W] -> boxes [x0, y0, x1, y1] (exclusive ends) of 8-connected components of prob > thr that are
    at least min_size x min_size, with each component's pixel count."""
    from scipy import ndimage
    lab, n = ndimage.label(prob > thr, structure=np.ones((3, 3), bool))
    boxes = []
    for i, sl in enumerate(ndimage.find_objects(lab), 1):
        if sl is None:
            continue
        h, w = sl[0].stop - sl[0].start, sl[1].stop - sl[1].start
        if h >= min_size and w >= min_size:
            boxes.append([sl[1].start, sl[0].start, sl[1].stop, sl[0].stop])
    return boxes


def iou(a, b):
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    ua = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / ua if ua > 0 else 0.0


def match(ref_boxes, got_boxes, thr=0.5):
    """One-to-one greedy matching by IoU, highest first; returns the number of matched pairs."""
    pairs = sorted(((iou(a, b), i, j) for i, a in enumerate(ref_boxes) for j, b in enumerate(got_boxes)), reverse=True)
    used_i, used_j, m = set(), set(), 0
    for v, i, j in pairs:
        if v < thr:
            break
        if i in used_i or j in used_j:
            continue
        used_i.add(i)
        used_j.add(j)
        m += 1
    return m


def unclip(box, ratio=1.5, shape=None):
    """DB's unclip of a rectangle: grow each side by area * ratio / perimeter."""
    w, h = box[2] - box[0], box[3] - box[1]
    d = w * h * ratio / max(1, 2 * (w + h))
    b = [box[0] - d, box[1] - d, box[2] + d, box[3] + d]
    if shape is not None:
        b = [max(0, b[0]), max(0, b[1]), min(shape[1], b[2]), min(shape[0], b[3])]
    return b


def _maps(a):
    return a[:, 0] if a.ndim == 4 else a


def ocr_det(ref, got):
    ref, got = _maps(ref), _maps(got)
    nf = ng = nm = 0
    for r, g in zip(ref, got):
        bf, bg = det_boxes(r), det_boxes(g)
        nf, ng, nm = nf + len(bf), ng + len(bg), nm + match(bf, bg)
    return {"float_boxes": nf, "int8_boxes": ng, "matched": nm, "matched_share": nm / nf if nf else None,
            "samples": len(ref)}


def ocr_det_vs_gt(ref, gts):
    ref = _maps(ref)
    ng = nd = nm = 0
    for r, gt in zip(ref, gts):
        boxes = [unclip(b, shape=r.shape) for b in det_boxes(r)]
        ng, nd, nm = ng + len(gt["boxes"]), nd + len(boxes), nm + match(gt["boxes"], boxes)
    return {"gt_lines": ng, "detected": nd, "recall": nm / ng if ng else None, "precision": nm / nd if nd else None}


# ---------------------------------------------------------------------------------------------------

def top1_agreement(ref, got, axis=-1):
    return float(np.mean(ref.argmax(axis) == got.argmax(axis)))


def task_of(meta):
    return meta.get("task")


def compute(meta, model_dir, ref, got):
    """ref, got: {output file stem: array}. Returns the task metric of int8 (got) against float (ref), or None
    for tasks without one."""
    task = task_of(meta)
    out = meta["output_names"][0]
    from common import sanitize
    r, g = ref[sanitize(out)], got[sanitize(out)]
    if r.shape != g.shape:
        return {"error": f"shape {list(g.shape)} != float {list(r.shape)}"}
    if task == "classification":
        return {"top1_agreement": top1_agreement(r, g), "samples": int(r.shape[0])}
    if task == "segmentation":
        return {"pixel_agreement": top1_agreement(r, g, axis=1), "samples": int(r.shape[0])}
    if task == "language_model":
        return {"next_token_agreement": top1_agreement(r, g), "positions": int(np.prod(r.shape[:-1]))}
    if task == "ocr_rec":
        keys = open(os.path.join(model_dir, "ppocr_keys_v1.txt"), encoding="utf-8").read().split("\n")
        if keys and keys[-1] == "":
            keys = keys[:-1]
        gts = json.load(open(os.path.join(model_dir, "eval_gt.json"), encoding="utf-8"))
        return ocr_rec(r, g, gts, keys)
    if task == "ocr_det":
        return ocr_det(r, g)
    return None


def headline(task, m):
    """A short cell for the table."""
    if not m:
        return "-"
    if "error" in m:
        return "error: " + m["error"]
    if task == "classification":
        return f"top-1 agree {m['top1_agreement']:.3f}"
    if task == "segmentation":
        return f"pixel agree {m['pixel_agreement']:.3f}"
    if task == "language_model":
        return f"next-token agree {m['next_token_agreement']:.3f}"
    if task == "ocr_rec":
        return f"exact {m['float_exact']:.2f}->{m['int8_exact']:.2f}, CER {m['float_cer']:.3f}->{m['int8_cer']:.3f}"
    if task == "ocr_det":
        s = m["matched_share"]
        return f"boxes matched {s:.3f} ({m['float_boxes']}/{m['int8_boxes']})" if s is not None else "no float boxes"
    return json.dumps(m)
