// ptq.quantize, ptq.calibrate, ptq.rewrite and ptq.load_table: the CLI's jobs on configs given as dicts or
// paths and data given as Python objects, with the GIL released while ptq works.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <filesystem>
#include <optional>
#include <string>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_reader.h"
#include "cli/calibration_stage.h"
#include "cli/config_file.h"
#include "cli/float_model.h"
#include "cli/python/py_data.h"
#include "cli/python/py_errors.h"
#include "cli/python/py_module.h"
#include "cli/quantize_job.h"
#include "cli/rewrite_job.h"
#include "cli/watched_samples.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace py = pybind11;

namespace ptq::python {
namespace {

// A dict config (relative paths against the current folder) or the path of a JSON config file.
ConfigFile ToConfig(const py::object& config) {
  if (py::isinstance<py::dict>(config)) {
    std::string text;
    try {
      text = py::module_::import("json").attr("dumps")(config).cast<std::string>();
    } catch (const py::error_already_set& e) {
      ThrowUsageError("config: not JSON data: ", e.what());
    }
    return ConfigFromJson(ParseJsonText(text, "config", ErrorKind::kUsage), std::filesystem::current_path().string(), "config");
  }
  if (!py::isinstance<py::str>(config) && !py::hasattr(config, "__fspath__")) {
    ThrowUsageError("config: expected a dict or the path of a JSON config file, got ",
                    py::str(py::type::of(config).attr("__name__")).cast<std::string>());
  }
  const std::string path = py::module_::import("os").attr("fspath")(config).cast<std::string>();
  return LoadConfig(path, {});
}

py::object JsonToPython(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

// Called per batch and at stage starts with the GIL taken: Ctrl-C, then the user's progress callback.
std::function<void(const std::string&, int64_t, int64_t)> ProgressHook(const py::object& progress) {
  return [progress](const std::string& stage, int64_t done, int64_t total) {
    py::gil_scoped_acquire gil;
    CheckSignals();
    if (!progress.is_none()) progress(stage, done, total < 0 ? py::object(py::none()) : py::object(py::int_(total)));
  };
}

void SetThreads(std::optional<int> threads) {
  if (threads && *threads < 1) ThrowUsageError("threads must be at least 1, not ", *threads);
  SetNumThreads(threads.value_or(0));
}

// Passes over `data` when it is given (a PyData kept in `holder`, named `what`), else over the files at
// `path` (a config's data key); empty when there are neither. `name` says which, for messages.
SampleSourceFactory SamplesFrom(const py::object& data, const std::string& path, const char* what, int64_t buffer_bytes,
                                std::optional<PyData>* holder, std::string* name) {
  if (!data.is_none()) {
    holder->emplace(data, what, buffer_bytes);
    *name = what;
    return (*holder)->Factory(false);
  }
  *name = path;
  return path.empty() ? SampleSourceFactory() : FileSamples(path);
}

constexpr const char* kNoCalibrationData = "no calibration data: pass calibration_data or set 'calibration.data' in the config";

struct QuantizeResult {
  std::string model, data_file, report_path, json_path, table_path;
  py::object report;
  std::vector<std::string> gate_failures;
  bool passed() const { return gate_failures.empty(); }
};

QuantizeResult Quantize(const py::object& config_arg, const py::object& calibration_data, const py::object& validation_data,
                        const py::object& progress, std::optional<int> threads, bool literal_qdq, bool quiet,
                        int64_t one_shot_buffer_bytes) {
  const ConfigFile config = ToConfig(config_arg);
  const QuantizeSections sections = ParseQuantizeSections(config);
  SetThreads(threads);
  SessionOptions::SetDefaultLiteralQdq(literal_qdq);
  std::optional<PyData> cal_data, val_data;
  QuantizeData data;
  data.calibration = SamplesFrom(calibration_data, sections.cal.data, "calibration_data", one_shot_buffer_bytes, &cal_data,
                                 &data.calibration_name);
  if (!data.calibration) ThrowUsageError(kNoCalibrationData);
  data.validation = SamplesFrom(validation_data, sections.val.data, "validation_data", one_shot_buffer_bytes, &val_data,
                                &data.validation_name);
  if (!data.validation && cal_data) {  // validation on the calibration data: a one-shot iterator's kept batches will do
    data.validation = cal_data->Factory(true);
    data.validation_name = "calibration_data";
  }
  QuantizeHooks hooks;
  hooks.quiet = quiet;
  hooks.progress = ProgressHook(progress);
  QuantizeOutcome out;
  {
    py::gil_scoped_release release;
    out = RunQuantize(config, data, hooks);
  }
  QuantizeResult r;
  r.model = out.model;
  r.data_file = out.data_file;
  r.report_path = out.report_path;
  r.json_path = out.json_path;
  r.table_path = out.table_path;
  r.report = JsonToPython(out.report);
  r.gate_failures = out.gate_failures;
  return r;
}

py::object Calibrate(const py::object& config_arg, const py::object& calibration_data, const std::optional<std::string>& table,
                     const py::object& progress, std::optional<int> threads, bool quiet, int64_t one_shot_buffer_bytes) {
  const ConfigFile config = ToConfig(config_arg);
  const CalibrationConfig cal = ParseCalibrationConfig(config.json, config.dir);
  SetThreads(threads);
  std::optional<PyData> cal_data;
  std::string name;
  SampleSourceFactory samples =
      SamplesFrom(calibration_data, cal.data, "calibration_data", one_shot_buffer_bytes, &cal_data, &name);
  if (!samples) ThrowUsageError(kNoCalibrationData);
  std::string out = table.value_or(cal.table);
  if (out.empty()) out = DefaultTablePath(config);
  const auto hook = ProgressHook(progress);
  samples = WatchedSamples(samples, [hook](int64_t done, int64_t total) { hook("calibration", done, total); });
  SampleOptions so;
  so.max_samples = cal.max_samples;
  so.batch_size = cal.batch_size;
  std::string text;
  {
    py::gil_scoped_release release;
    const CalibrationStage stage = RunCalibrationStage(config, FloatModel(config.model), cal, samples, so, "", quiet);
    WriteFileAtomic(out, stage.table);
    text = stage.table;
  }
  return py::module_::import("json").attr("loads")(text);
}

std::string Rewrite(const py::object& config_arg, const py::object& table, const std::optional<std::string>& output) {
  const ConfigFile config = ToConfig(config_arg);
  const CalibrationConfig cal = ParseCalibrationConfig(config.json, config.dir);
  (void)ParseQuantizationOptions(config.json);  // config errors before table errors, as ptq rewrite
  const std::string out = output.value_or(config.output);
  std::string origin;
  std::optional<QuantTable> parsed;
  if (py::isinstance<py::dict>(table)) {
    origin = "table";
    parsed = ParseQuantTable(py::module_::import("json").attr("dumps")(table).cast<std::string>(), origin);
  } else {
    origin = table.is_none() ? (cal.table.empty() ? DefaultTablePath(config) : cal.table)
                             : py::module_::import("os").attr("fspath")(table).cast<std::string>();
    parsed = ReadQuantTable(origin);
  }
  py::gil_scoped_release release;
  RunRewrite(config, *parsed, origin, out);
  return out;
}

py::object LoadTable(const std::string& path) {
  const std::string text = ReadTableFile(path);
  (void)ParseQuantTable(text, path);  // checked as the rewrite reads it
  return py::module_::import("json").attr("loads")(text);
}

}  // namespace

void DefineJobs(py::module_& m) {
  py::class_<QuantizeResult>(m, "QuantizeResult", "What ptq.quantize wrote and measured.")
      .def_readonly("model", &QuantizeResult::model, "Path of the quantized model.")
      .def_readonly("data_file", &QuantizeResult::data_file, "Its external data file ('' when none).")
      .def_readonly("report", &QuantizeResult::report, "The accuracy report (the JSON report as a dict).")
      .def_readonly("report_path", &QuantizeResult::report_path, "The HTML (or Markdown, or JSON) report's path.")
      .def_readonly("json_path", &QuantizeResult::json_path, "The JSON report's path.")
      .def_readonly("table_path", &QuantizeResult::table_path, "The calibration table's path.")
      .def_readonly("gate_failures", &QuantizeResult::gate_failures, "validation.gate thresholds not met.")
      .def_property_readonly("passed", &QuantizeResult::passed, "True when every validation.gate threshold is met.")
      .def("__repr__", [](const QuantizeResult& r) {
        return "QuantizeResult(model=" + py::repr(py::str(r.model)).cast<std::string>() + ", passed=" + (r.passed() ? "True" : "False") + ")";
      });
  m.def("quantize", &Quantize, py::arg("config"), py::arg("calibration_data") = py::none(), py::arg("validation_data") = py::none(),
        py::arg("progress") = py::none(), py::arg("threads") = py::none(), py::arg("literal_qdq") = false, py::arg("quiet") = true,
        py::arg("one_shot_buffer_bytes") = kOneShotBufferBytes,
        R"(Calibrates, rewrites, validates and reports, as `ptq quantize --config` does.

config: a dict with the keys of a ptq config (relative paths resolve against the current folder) or
  the path of a JSON config file.
calibration_data: None (the config's calibration.data files) or the samples: a list of dicts
  {input name: array}, any iterable or callable giving such dicts, or an object with ONNX Runtime's
  get_next() reader protocol. Each dict is a batch: the first axis of its arrays counts samples; ptq
  runs calibration.batch_size samples per run, as it does for .npy files. A one-shot iterator (a
  generator, a reader without rewind()) is read once: ptq keeps its batches (the arrays themselves,
  up to one_shot_buffer_bytes, default 1 GiB) for the later passes (validation on the calibration
  data, smoothquant, bias_correction, calibration.method auto); a pass that needs more is a DataError
  asking for re-iterable data, except validation on the calibration data, which then uses the batches
  kept.
validation_data: None (validation.data, else the calibration samples) or samples as above; with
  quantization.fallback "auto" they must be re-iterable (a list, or a callable returning an iterator).
progress: called as progress(stage, done, total) at each stage's start and after each batch (total
  None when unknown).
threads: kernel threads (None: one per core). literal_qdq: validate a QDQ model node by node in float.
quiet: False prints the CLI's stage lines, notes and warnings on stderr.

Returns a QuantizeResult; a failed validation.gate is result.passed False, not an exception.
Raises ConfigError, ModelError or DataError with the CLI's messages; KeyboardInterrupt on Ctrl-C.
Nothing is written unless every stage succeeds.)");
  m.def("calibrate", &Calibrate, py::arg("config"), py::arg("calibration_data") = py::none(), py::arg("table") = py::none(),
        py::arg("progress") = py::none(), py::arg("threads") = py::none(), py::arg("quiet") = true,
        py::arg("one_shot_buffer_bytes") = kOneShotBufferBytes,
        "Runs the calibration pass (as `ptq calibrate`), writes the calibration table to `table` (default: "
        "calibration.table, else <output stem>.calib.json beside the output) and returns it as a dict. "
        "calibration_data, progress, threads, quiet and one_shot_buffer_bytes as for quantize.");
  m.def("rewrite", &Rewrite, py::arg("config"), py::arg("table") = py::none(), py::arg("output") = py::none(),
        "Writes the quantized model (as `ptq rewrite`) from the float model and a calibration table: a path, a "
        "dict from calibrate() or load_table(), or None (the config's table). Returns the model's path "
        "(`output`, default the config's output).");
  m.def("load_table", &LoadTable, py::arg("path"),
        "Reads a calibration table file, checked as the rewrite reads it, and returns it as a dict.");
}

}  // namespace ptq::python
