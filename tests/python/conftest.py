# Fixtures of the Python module's tests: the module (required: a missing build fails, never skips), the
# ptq binary for the CLI side of comparisons, and the bundled models and data.
import os
import pathlib
import subprocess

import numpy as np
import pytest

import ptq  # noqa: F401  (ImportError here fails the suite: CI requires the module)

SOURCE = pathlib.Path(os.environ.get("PTQ_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[2]))
DATA = SOURCE / "tests" / "data"
BINARY = os.environ.get("PTQ_BINARY", str(SOURCE / "build" / "ptq"))


def run_cli(*args, check=True):
    """Runs the ptq binary; returns the CompletedProcess (text output)."""
    r = subprocess.run([BINARY, *map(str, args)], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise AssertionError(f"ptq {' '.join(map(str, args))} exited {r.returncode}:\n{r.stderr}")
    return r


def load_npy_folder(folder):
    """{input name: array} of an .npy folder (the file stem is the input name)."""
    return {p.stem: np.load(p) for p in sorted(pathlib.Path(folder).glob("*.npy"))}


def batches(arrays, sizes):
    """Yields dicts of consecutive rows of `arrays`, cycling through the batch `sizes`."""
    n = len(next(iter(arrays.values())))
    start, i = 0, 0
    while start < n:
        k = sizes[i % len(sizes)]
        yield {name: a[start:start + k] for name, a in arrays.items()}
        start += k
        i += 1


@pytest.fixture
def cnn(tmp_path):
    """A config dict for the digits CNN (absolute paths), outputs in tmp_path."""
    d = DATA / "digits_cnn"
    return {
        "model": str(d / "digits_cnn.onnx"),
        "output": str(tmp_path / "cli" / "cnn.int8.onnx"),
        "calibration": {"data": str(d / "calib"), "batch_size": 8, "method": "percentile"},
        "quantization": {"format": "qoperator"},
        "validation": {"report": str(tmp_path / "cli" / "cnn.report.json")},
    }


@pytest.fixture
def bert(tmp_path):
    """A config dict for the BERT-shaped encoder (two int64 inputs), QDQ format."""
    d = DATA / "bert_encoder"
    return {
        "model": str(d / "bert_encoder.onnx"),
        "output": str(tmp_path / "cli" / "bert.int8.onnx"),
        "calibration": {"data": str(d / "calib"), "batch_size": 4, "max_samples": 24},
        "quantization": {"format": "qdq", "attention": True},
        "validation": {"report": str(tmp_path / "cli" / "bert.report.json")},
    }
