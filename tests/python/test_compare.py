# ptq.compare and ptq.inspect against `ptq compare` and `ptq inspect --json`.
import json

import pytest

import ptq
from conftest import DATA, batches, load_npy_folder, run_cli

CNN = DATA / "digits_cnn"


@pytest.fixture
def int8_cnn(cnn, tmp_path):
    return ptq.quantize(cnn, calibration_data=[load_npy_folder(CNN / "calib")]).model


def test_compare_on_python_data_gives_the_cli_report(int8_cnn, tmp_path):
    cli_json = tmp_path / "cli.json"
    run_cli("compare", CNN / "digits_cnn.onnx", int8_cnn, "--data", CNN / "eval", "--labels", CNN / "eval_labels.npy",
            "--batch-size", 8, "--report", cli_json, "--quiet")
    want = json.loads(cli_json.read_text())
    evals = load_npy_folder(CNN / "eval")
    got = ptq.compare(CNN / "digits_cnn.onnx", int8_cnn, batches(evals, [5, 11]), labels=CNN / "eval_labels.npy", batch_size=8)
    assert got["outputs"] == want["outputs"]
    assert got["layers"] == want["layers"] and len(got["layers"]) > 0
    from_files = ptq.compare(str(CNN / "digits_cnn.onnx"), int8_cnn, str(CNN / "eval"), labels=str(CNN / "eval_labels.npy"),
                             batch_size=8, report=tmp_path / "py.html")
    assert from_files["outputs"] == want["outputs"]
    assert (tmp_path / "py.html").is_file() and (tmp_path / "py.json").is_file()


def test_compare_of_models_with_other_inputs_is_a_model_error():
    with pytest.raises(ptq.ModelError, match="different inputs"):
        ptq.compare(CNN / "digits_cnn.onnx", DATA / "digits_vit" / "digits_vit_opset13.onnx", str(CNN / "eval"))


@pytest.mark.parametrize("model", [CNN / "digits_cnn.onnx", DATA / "bert_encoder" / "bert_encoder.onnx",
                                   DATA / "tiny_qlinear_matmul" / "model.onnx"])
def test_inspect_gives_the_cli_json(model):
    want = json.loads(run_cli("inspect", model, "--json").stdout)
    assert ptq.inspect(str(model)) == want


def test_inspect_sees_the_integer_share_of_a_quantized_model(int8_cnn):
    float_share = ptq.inspect(CNN / "digits_cnn.onnx")["macs"]["integer_share"]
    int8_share = ptq.inspect(int8_cnn)["macs"]["integer_share"]
    assert float_share == 0 and int8_share == 1
