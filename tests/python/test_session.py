# ptq.Session against `ptq run`: the same output bits, inputs and outputs described, numpy in and out.
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import ptq
from conftest import DATA, SOURCE, load_npy_folder, run_cli


def cli_outputs(model, inputs, tmp_path):
    out = tmp_path / "outputs"
    run_cli("run", model, "--inputs", inputs, "--outputs", out)
    return load_npy_folder(out)


@pytest.mark.parametrize("model,inputs", [
    (DATA / "digits_cnn" / "digits_cnn.onnx", DATA / "digits_cnn" / "eval"),
    (DATA / "bert_encoder" / "bert_encoder.onnx", DATA / "bert_encoder" / "eval"),
    (DATA / "tiny_qlinear_matmul" / "model.onnx", DATA / "tiny_qlinear_matmul" / "inputs"),
])
def test_run_gives_the_bits_of_ptq_run(model, inputs, tmp_path):
    expected = cli_outputs(model, inputs, tmp_path)  # file names with ':' as '_'
    s = ptq.Session(str(model))
    got = s.run({name: np.load(inputs / (name.replace(":", "_") + ".npy")) for name, _, _ in s.inputs})
    got = {name.replace(":", "_"): v for name, v in got.items()}
    assert sorted(got) == sorted(expected)
    for name, want in expected.items():
        assert got[name].dtype == want.dtype and got[name].shape == want.shape
        assert np.array_equal(got[name], want), name


def test_a_quantized_model_runs_as_ptq_run_runs_it(cnn, tmp_path):
    r = ptq.quantize(cnn, calibration_data=[load_npy_folder(DATA / "digits_cnn" / "calib")])
    expected = cli_outputs(r.model, DATA / "digits_cnn" / "eval", tmp_path)
    got = ptq.Session(r.model, threads=1).run(load_npy_folder(DATA / "digits_cnn" / "eval"))
    assert np.array_equal(got["logits"], expected["logits"])


def test_inputs_and_outputs_are_described():
    s = ptq.Session(str(DATA / "bert_encoder" / "bert_encoder.onnx"), threads=2)
    assert [(n, t) for n, t, _ in s.inputs] == [("input_ids", "int64"), ("attention_mask", "int64")]
    assert s.inputs[0][2] == ("batch", "sequence")
    assert s.threads == 2
    assert len(s.outputs) >= 1


def test_feeds_are_converted_within_a_kind_and_outputs_survive_the_session():
    s = ptq.Session(str(DATA / "digits_cnn" / "digits_cnn.onnx"))
    x = np.load(DATA / "digits_cnn" / "eval" / "images.npy")[:4]
    a = s.run({"images": x})["logits"]
    b = s.run({"images": x.astype(np.float64)})["logits"]
    c = s.run({"images": x[:, :, ::-1, :][:, :, ::-1, :]})["logits"]  # a strided view of the same values
    del s
    assert np.array_equal(a, b) and np.array_equal(a, c)
    assert a.flags["C_CONTIGUOUS"] and a.dtype == np.float32


def test_bench_times_the_model():
    s = ptq.Session(str(DATA / "digits_cnn" / "digits_cnn.onnx"), threads=1)
    r = s.bench({"images": np.load(DATA / "digits_cnn" / "eval" / "images.npy")[:1]}, seconds=0.05)
    assert r["runs"] >= 5 and 0 < r["min_ms"] <= r["median_ms"]


def test_cmake_install_puts_the_module_on_debians_python_path(tmp_path):
    build = os.environ.get("PTQ_BUILD_DIR", str(SOURCE / "build"))
    subprocess.run(["cmake", "--install", build, "--prefix", str(tmp_path)], check=True, capture_output=True)
    site = tmp_path / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "dist-packages"
    assert (tmp_path / "bin" / "ptq").is_file()
    env = dict(os.environ, PYTHONPATH=str(site))
    r = subprocess.run([sys.executable, "-c", "import ptq; print(ptq.__file__)"], env=env, cwd=tmp_path,
                       capture_output=True, text=True, check=True)
    assert pathlib.Path(r.stdout.strip()).parent == site
