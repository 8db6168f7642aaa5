# Every exception type from a real bad input, with the CLI's message; Ctrl-C leaves no output.
import json
import os
import signal

import numpy as np
import pytest

import ptq
from conftest import DATA, load_npy_folder, run_cli


def cli_error(cfg, tmp_path):
    path = tmp_path / "cfg.json"
    path.write_text(json.dumps(cfg))
    r = run_cli("quantize", "--config", path, "--quiet", check=False)
    assert r.returncode in (1, 2), r.stderr
    line = [l for l in r.stderr.splitlines() if l.startswith("ptq: error: ")][0]
    return path, line[len("ptq: error: "):]


def test_exception_classes_share_one_base():
    for cls in (ptq.ConfigError, ptq.ModelError, ptq.DataError):
        assert issubclass(cls, ptq.Error) and issubclass(ptq.Error, Exception)


def test_a_misspelt_key_is_a_config_error_with_the_cli_message(cnn, tmp_path):
    cnn["calibratoin"] = cnn.pop("calibration")
    path, message = cli_error(cnn, tmp_path)
    with pytest.raises(ptq.ConfigError) as e:
        ptq.quantize(str(path))
    assert str(e.value) == message and "calibration" in message
    with pytest.raises(ptq.ConfigError):
        ptq.quantize(cnn, calibration_data=[])
    with pytest.raises(ptq.ConfigError, match="threads"):
        ptq.Session(str(DATA / "digits_cnn" / "digits_cnn.onnx"), threads=0)


def test_a_truncated_model_is_a_model_error_with_the_cli_message(cnn, tmp_path):
    bad = tmp_path / "truncated.onnx"
    bad.write_bytes((DATA / "digits_cnn" / "digits_cnn.onnx").read_bytes()[:200])
    cnn["model"] = str(bad)
    path, message = cli_error(cnn, tmp_path)
    with pytest.raises(ptq.ModelError) as e:
        ptq.quantize(str(path))
    assert str(e.value) == message
    with pytest.raises(ptq.ModelError):
        ptq.Session(str(bad))


def test_bad_data_is_a_data_error(cnn, bert, tmp_path):
    x = load_npy_folder(DATA / "digits_cnn" / "calib")["images"]
    cases = [
        ({"pixels": x}, "not an input of the model"),              # a wrong input name
        ({"images": x[:, :, :4, :]}, "dimension 2 must be 8"),     # a wrong shape
        ({"images": x.astype(np.complex64)}, "complex"),          # no conversion to float32
        ([1, 2], "expected a dict"),                               # not a dict
    ]
    for item, message in cases:
        data = [item] if isinstance(item, dict) else item
        with pytest.raises(ptq.DataError, match=message):
            ptq.quantize(cnn, calibration_data=data)
    ids = load_npy_folder(DATA / "bert_encoder" / "calib")
    with pytest.raises(ptq.DataError, match="expects int64"):  # float token ids are refused, not truncated
        ptq.quantize(bert, calibration_data=[{k: v.astype(np.float32) for k, v in ids.items()}])
    s = ptq.Session(str(DATA / "digits_cnn" / "digits_cnn.onnx"))
    with pytest.raises(ptq.DataError, match="no value given for input 'images'"):
        s.run({})
    assert not os.path.exists(cnn["output"])


def test_an_invalid_data_object_is_a_config_error(cnn):
    with pytest.raises(ptq.ConfigError, match="calibration_data"):
        ptq.quantize(cnn, calibration_data=42)


def test_ctrl_c_raises_keyboard_interrupt_and_writes_nothing(cnn, tmp_path):
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")

    def progress(stage, done, total):
        if stage == "validation" and done > 0:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C in a terminal

    with pytest.raises(KeyboardInterrupt):
        ptq.quantize(cnn, calibration_data=[arrays], progress=progress)
    out = tmp_path / "cli"
    assert not out.exists() or list(out.iterdir()) == []


def test_an_exception_in_the_users_generator_propagates_unchanged(cnn, tmp_path):
    def broken():
        yield load_npy_folder(DATA / "digits_cnn" / "calib")
        raise ValueError("the tokenizer failed")

    with pytest.raises(ValueError, match="the tokenizer failed"):
        ptq.quantize(cnn, calibration_data=broken())
