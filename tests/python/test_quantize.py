# ptq.quantize against `ptq quantize`: the same int8 graph and table from Python data as from .npy files.
import copy
import json

import numpy as np
import onnx
import pytest

import ptq
from conftest import DATA, batches, load_npy_folder, run_cli


def write_config(cfg, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(cfg))
    return path


def graph_without_provenance(path):
    """The model's graph, opsets and IR version: everything but the provenance metadata."""
    m = onnx.load(str(path))
    return m.graph.SerializeToString(deterministic=True), [(o.domain, o.version) for o in m.opset_import], m.ir_version


def table_tensors(path):
    return json.loads(open(path).read())["tensors"]


def python_config(cfg, tmp_path, name):
    """The same config for the module: no data paths, outputs in their own folder."""
    c = copy.deepcopy(cfg)
    del c["calibration"]["data"]
    stem = name
    c["output"] = str(tmp_path / "py" / f"{stem}.int8.onnx")
    c["validation"]["report"] = str(tmp_path / "py" / f"{stem}.report.json")
    return c


def quantize_both(cfg, tmp_path, data, name, **kw):
    """`ptq quantize` on the files and ptq.quantize on `data`; returns (CLI outputs, module result)."""
    run_cli("quantize", "--config", write_config(cfg, tmp_path / "cli" / "cfg.json"), "--quiet")
    result = ptq.quantize(python_config(cfg, tmp_path, name), calibration_data=data, **kw)
    return cfg["output"], result


@pytest.mark.parametrize("sizes", [[8], [3, 5, 13], [64]])
def test_generator_gives_the_cli_graph_and_table(cnn, tmp_path, sizes):
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    cli_model, r = quantize_both(cnn, tmp_path, batches(arrays, sizes), "cnn")
    assert graph_without_provenance(cli_model) == graph_without_provenance(r.model)
    cli_table = table_tensors(str(cli_model).replace(".int8.onnx", ".int8.calib.json"))
    assert table_tensors(r.table_path) == cli_table
    assert r.report["provenance"]["calibration_samples"] == 64


def test_two_int64_inputs_and_qdq_from_a_list(bert, tmp_path):
    arrays = load_npy_folder(DATA / "bert_encoder" / "calib")
    cli_model, r = quantize_both(bert, tmp_path, list(batches(arrays, [7])), "bert")
    assert graph_without_provenance(cli_model) == graph_without_provenance(r.model)
    assert table_tensors(r.table_path) == table_tensors(str(cli_model).replace(".int8.onnx", ".int8.calib.json"))
    assert r.report["provenance"]["calibration_samples"] == 24


class Reader:
    """ONNX Runtime's CalibrationDataReader protocol: get_next() gives a feed dict, then None."""

    def __init__(self, arrays):
        self.items = iter([{k: v[i:i + 1] for k, v in arrays.items()} for i in range(len(next(iter(arrays.values()))))])

    def get_next(self):
        return next(self.items, None)


def test_an_onnx_runtime_reader_works_and_validates_on_what_it_gave(cnn, tmp_path):
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    cli_model, r = quantize_both(cnn, tmp_path, Reader(arrays), "cnn")
    assert graph_without_provenance(cli_model) == graph_without_provenance(r.model)
    # The reader is one-shot: validation ran on the samples kept from the calibration pass.
    assert r.report["provenance"]["validation_samples"] == 64
    cli_report = json.loads(open(cnn["validation"]["report"]).read())
    assert r.report["outputs"] == cli_report["outputs"]


def test_a_one_shot_generator_feeds_a_second_calibration_pass(cnn, tmp_path):
    cnn["quantization"]["bias_correction"] = True  # a second pass over the calibration samples
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    cli_model, r = quantize_both(cnn, tmp_path, batches(arrays, [16]), "cnn")
    assert graph_without_provenance(cli_model) == graph_without_provenance(r.model)


def test_a_pass_beyond_the_kept_batches_asks_for_re_iterable_data(cnn, tmp_path):
    cnn["quantization"]["bias_correction"] = True
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    c = python_config(cnn, tmp_path, "cnn")
    with pytest.raises(ptq.DataError, match="one-shot iterator.*re-iterable data"):
        ptq.quantize(c, calibration_data=batches(arrays, [16]), one_shot_buffer_bytes=16 * 64 * 4)
    assert not (tmp_path / "py").exists() or not any((tmp_path / "py").iterdir())
    # A callable returning a new iterator is re-iterable: no buffer needed.
    r = ptq.quantize(c, calibration_data=lambda: batches(arrays, [16]), one_shot_buffer_bytes=0)
    assert r.passed


def test_validation_data_and_labels_from_python(cnn, tmp_path):
    cnn["validation"]["data"] = str(DATA / "digits_cnn" / "eval")
    cnn["validation"]["labels"] = str(DATA / "digits_cnn" / "eval_labels.npy")
    run_cli("quantize", "--config", write_config(cnn, tmp_path / "cli" / "cfg.json"), "--quiet")
    c = python_config(cnn, tmp_path, "cnn")
    del c["validation"]["data"]
    calib = load_npy_folder(DATA / "digits_cnn" / "calib")
    evals = load_npy_folder(DATA / "digits_cnn" / "eval")
    r = ptq.quantize(c, calibration_data=batches(calib, [8]), validation_data=[evals])
    cli_report = json.loads(open(cnn["validation"]["report"]).read())
    assert r.report["outputs"] == cli_report["outputs"]
    assert r.report["provenance"]["validation_samples"] == 128


def test_dtype_and_layout_conversions(cnn, tmp_path):
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    x = arrays["images"]
    cli_model, r = quantize_both(cnn, tmp_path, [{"images": x.astype(np.float64)}], "cnn")
    assert graph_without_provenance(cli_model) == graph_without_provenance(r.model)
    # A non-contiguous view (every value the same) is copied, not refused.
    fortran = {"images": np.asfortranarray(x)}
    r2 = ptq.quantize(python_config(cnn, tmp_path, "cnn2"), calibration_data=[fortran])
    assert graph_without_provenance(r2.model) == graph_without_provenance(r.model)


def test_progress_hears_every_stage_and_batch(cnn, tmp_path):
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    calls = []
    ptq.quantize(python_config(cnn, tmp_path, "cnn"), calibration_data=list(batches(arrays, [16])),
                 progress=lambda stage, done, total: calls.append((stage, done, total)))
    stages = [c[0] for c in calls]
    for s in ["calibration", "rewrite", "validation", "writing"]:
        assert s in stages
    assert ("calibration", 64, 64) in calls  # a list: the total is known
    gen_calls = []
    ptq.quantize(python_config(cnn, tmp_path, "cnn"), calibration_data=batches(arrays, [16]),
                 progress=lambda stage, done, total: gen_calls.append((stage, done, total)))
    assert ("calibration", 64, None) in gen_calls  # a generator: unknown in advance


def test_relative_paths_of_a_dict_config_resolve_against_the_current_folder(cnn, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    c = python_config(cnn, tmp_path, "cnn")
    c["output"] = "rel/cnn.int8.onnx"
    c["validation"]["report"] = "rel/cnn.report.json"
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    r = ptq.quantize(c, calibration_data=[arrays])
    assert (tmp_path / "rel" / "cnn.int8.onnx").is_file()
    assert (tmp_path / "rel" / "cnn.report.json").is_file()
    assert r.model.endswith("rel/cnn.int8.onnx")


def test_a_failed_gate_is_a_result_not_an_exception(cnn, tmp_path):
    cnn["validation"]["gate"] = {"min_sqnr_db": 500.0}
    arrays = load_npy_folder(DATA / "digits_cnn" / "calib")
    r = ptq.quantize(python_config(cnn, tmp_path, "cnn"), calibration_data=[arrays])
    assert not r.passed and r.gate_failures
    assert (tmp_path / "py" / "cnn.int8.onnx").is_file()


def test_a_config_file_path_with_its_own_data(cnn, tmp_path):
    path = write_config(cnn, tmp_path / "cli" / "cfg.json")
    r = ptq.quantize(path)  # a pathlib.Path
    from_module = graph_without_provenance(r.model)
    run_cli("quantize", "--config", path, "--quiet")  # the same outputs, written again
    assert from_module == graph_without_provenance(cnn["output"])


def test_arrays_of_the_models_dtype_are_used_in_place(cnn, tmp_path):
    import sys
    x = load_npy_folder(DATA / "digits_cnn" / "calib")["images"]
    exact = [np.ascontiguousarray(x[i:i + 16]) for i in range(0, 64, 16)]  # float32, as the model takes
    wide = [a.astype(np.float64) for a in exact]                            # converted by ptq
    refs = {}

    def run(arrays, key):
        def progress(stage, done, total):
            if stage == "validation" and key not in refs:
                refs[key] = sys.getrefcount(arrays[0]) - 1  # without getrefcount's own argument
        ptq.quantize(python_config(cnn, tmp_path, key), calibration_data=({"images": a} for a in arrays), progress=progress)

    run(exact, "exact")
    run(wide, "wide")
    # The one-shot generator's batches are kept for validation: the arrays themselves (the list's
    # reference and ptq's), or for float64 a float32 copy (the list's reference only).
    assert refs == {"exact": 2, "wide": 1}
