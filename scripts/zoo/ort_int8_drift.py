#!/usr/bin/python3
"""How far ONNX Runtime's results on ptq's int8 zoo models are from the float model, beside ptq's own: the
same int8 model run by both on the model's eval split, each output's SQNR against the float reference and
the top-1 agreement of classifier logits. On a CPU without VNNI, ONNX Runtime's uint8 x int8 kernels sum
byte pairs with vpmaddubsw, which saturates at 32767; ptq's sums are exact (README, "Int8 on the AVX2
machine"). Needs the zoo's models and their int8 models (run_zoo.py). Prints a Markdown table.
    /usr/bin/python3 scripts/zoo/ort_int8_drift.py --ptq build/ptq [--models a,b] [--forms qoperator,qdq]"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
from run_zoo import available_models, select_models  # noqa: E402


def sqnr_db(ref, got):
    err = float(((got.astype(np.float64) - ref) ** 2).sum())
    sig = float((ref.astype(np.float64) ** 2).sum())
    return float("inf") if err == 0 else 10 * np.log10(sig / err)


def top1(ref, got):
    if ref.ndim != 2 or ref.shape[1] < 10:
        return None
    return float((ref.argmax(1) == got.argmax(1)).mean())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptq", required=True)
    ap.add_argument("--models", default="")
    ap.add_argument("--forms", default="qoperator,qdq")
    a = ap.parse_args()
    print("| model | form | output | SQNR in ptq | SQNR in ONNX Runtime | top-1 agreement ptq / ONNX Runtime |")
    print("|---|---|---|---|---|---|")
    for model in select_models(a.models, available_models()):
        md = common.model_dir(model)
        ref = common.load_split(os.path.join(md, "ref"))
        for form in a.forms.split(","):
            int8 = os.path.join(common.zoo_dir(), "work", model, "quant_" + form, "model.int8.onnx")
            if not os.path.exists(int8):
                continue
            with tempfile.TemporaryDirectory() as tmp:
                ours, theirs = os.path.join(tmp, "ptq"), os.path.join(tmp, "ort")
                subprocess.run([a.ptq, "run", int8, "--inputs", os.path.join(md, "eval"), "--outputs", ours],
                               check=True, capture_output=True)
                common.ort_run(int8, os.path.join(md, "eval"), theirs)
                got_ptq, got_ort = common.load_split(ours), common.load_split(theirs)
                for name, r in sorted(ref.items()):
                    t_p, t_o = top1(r, got_ptq[name]), top1(r, got_ort[name])
                    agree = "-" if t_p is None else "%.2f / %.2f" % (t_p, t_o)
                    print("| %s | %s | %s | %.1f dB | %.1f dB | %s |" % (model, form, name, sqnr_db(r, got_ptq[name]),
                                                                        sqnr_db(r, got_ort[name]), agree))
                    sys.stdout.flush()


if __name__ == "__main__":
    main()
