// ptq.compare and ptq.inspect: the accuracy report for any pair of models, and what a model file holds.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <string>

#include "calibrate/sample_reader.h"
#include "cli/compare_job.h"
#include "cli/python/py_data.h"
#include "cli/python/py_errors.h"
#include "cli/python/py_module.h"
#include "cli/watched_samples.h"
#include "report/model_inspect.h"
#include "runtime/error.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

std::string Path(const py::object& p) { return py::module_::import("os").attr("fspath")(p).cast<std::string>(); }

py::object Compare(const py::object& float_model, const py::object& int8_model, const py::object& data,
                   const py::object& labels, const py::object& report, int64_t batch_size, std::optional<int64_t> max_samples,
                   const py::object& progress, std::optional<int> threads, bool literal_qdq) {
  if (threads && *threads < 1) ThrowUsageError("threads must be at least 1, not ", *threads);
  if (batch_size < 1) ThrowUsageError("batch_size must be at least 1, not ", batch_size);
  if (max_samples && *max_samples < 1) ThrowUsageError("max_samples must be at least 1, not ", *max_samples);
  CompareRequest r;
  r.float_path = Path(float_model);
  r.int8_path = Path(int8_model);
  std::optional<PyData> py_data;
  if (py::isinstance<py::str>(data) || py::hasattr(data, "__fspath__")) {
    r.data_name = Path(data);
    r.data = FileSamples(r.data_name);
  } else {
    py_data.emplace(data, "data");
    r.data = py_data->Factory(false);
    r.data_name = "data";
  }
  r.data = WatchedSamples(r.data, [progress](int64_t done, int64_t total) {
    py::gil_scoped_acquire gil;
    CheckSignals();
    if (!progress.is_none()) progress("validation", done, total < 0 ? py::object(py::none()) : py::object(py::int_(total)));
  });
  if (!labels.is_none()) r.labels_path = Path(labels);
  if (!report.is_none()) r.report_path = Path(report);
  r.options.batch_size = batch_size;
  r.options.max_samples = max_samples.value_or(-1);
  SetNumThreads(threads.value_or(0));
  SessionOptions::SetDefaultLiteralQdq(literal_qdq);
  std::string text;
  {
    py::gil_scoped_release release;
    text = RunCompare(r).report.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return py::module_::import("json").attr("loads")(text);
}

py::object Inspect(const py::object& model) {
  std::string text;
  const std::string path = Path(model);
  {
    py::gil_scoped_release release;
    text = InspectionJson(InspectModel(path)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void DefineCompare(py::module_& m) {
  m.def("compare", &Compare, py::arg("float_model"), py::arg("int8_model"), py::arg("data"), py::arg("labels") = py::none(),
        py::arg("report") = py::none(), py::arg("batch_size") = 1, py::arg("max_samples") = py::none(),
        py::arg("progress") = py::none(), py::arg("threads") = py::none(), py::arg("literal_qdq") = false,
        R"(The accuracy report alone, as `ptq compare`, for any float model and a quantized one (by ptq or
another tool): both run in lock-step on `data` and the report ("ptq-report" JSON) is returned as a dict.

data: a folder of .npy, an .npz or test_data_set_* folders (a path), or samples as for quantize (a list
  of {input name: array} dicts, an iterable, a callable or a get_next() reader).
labels: an .npy of int64 classes, one per sample, for top-1. report: also write it (.json, or .html /
  .md with the JSON beside it). progress(stage, done, total) after each batch.
Raises ModelError (unreadable models, different inputs or outputs), DataError, ConfigError.)");
  m.def("inspect", &Inspect, py::arg("model"),
        "What a model file holds, as `ptq inspect --json`: op counts, the integer share of MatMul/Gemm/Conv "
        "multiply-accumulates, weights by dtype, size on disk with external data, opsets, producer, "
        "metadata, inputs and outputs.");
}

}  // namespace ptq::python
