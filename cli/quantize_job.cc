// RunQuantize: the stages of the quantize job, the recovery and fallback measurements, the outputs.
#include "cli/quantize_job.h"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "cli/auto_fallback.h"
#include "cli/calibration_stage.h"
#include "cli/prepared_model.h"
#include "cli/stage_progress.h"
#include "cli/watched_samples.h"
#include "report/html_report.h"
#include "report/keep_float.h"
#include "report/report_json.h"
#include "report/terminal_report.h"
#include "report/validate.h"
#include "report/validation_config.h"
#include "rewrite/rewriter.h"
#include "runtime/allocator_tuning.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/model_writer.h"
#include "runtime/npy.h"
#include "runtime/quant_table.h"
#include "runtime/sha256.h"
#include "runtime/session.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

constexpr int kRecoveryLayers = 3;
// The recovery experiments (one rewrite and one validation each) run on the first samples only: their
// gains are compared with the full int8 model on the same samples.
constexpr int64_t kRecoverySamples = 16;

// A batch source over a pass of samples.
struct Batches {
  std::unique_ptr<SampleSource> reader;
  BatchSource source() {
    return [this](std::map<std::string, Tensor>* b, int64_t* n) { return reader->Next(b, n); };
  }
};

// The rewrite's record of who reads each quantized tensor, copied into the layer rows.
void AttachReaders(const RewriteInfo& info, ValidationResult* result) {
  for (LayerStats& l : result->layers) {
    const auto r = info.readers.find(l.tensor);
    if (r == info.readers.end()) continue;
    l.int8_readers = r->second.int8;
    l.float_readers = r->second.float_values;
    l.dequantized_readers = r->second.dequantized;
  }
}

// calibration.method "auto": the candidates' scores and the choice (null otherwise).
nlohmann::json MethodChoiceJson(const RangeMethodChoice& c) {
  if (c.chosen.empty()) return nullptr;
  nlohmann::json scores = nlohmann::json::object();
  for (const auto& [m, db] : c.scores) scores[m] = std::isfinite(db) ? nlohmann::json(db) : nlohmann::json(nullptr);
  return {{"chosen", c.chosen}, {"worst_output_sqnr_db", scores}, {"calibration_samples", c.samples}};
}

// What the methods beyond plain calibration did (quantization.bias_correction, ...).
nlohmann::json MethodsJson(const QuantizationOptions& rc, const RewriteInfo& info) {
  nlohmann::json m = {{"bias_correction", rc.bias_correction},
                      {"cross_layer_equalization", rc.cross_layer_equalization},
                      {"smoothquant", rc.smoothquant}};
  if (rc.smoothquant) {
    m["smoothquant_alpha"] = rc.smoothquant_alpha;
    m["smoothed_activations"] = info.smoothed.size();
    int multiplied = 0;  // smoothed through a new Mul rather than folded into the producer
    for (const auto& [x, read] : info.smoothed) multiplied += x != read;
    m["smoothing_mul_nodes"] = multiplied;
  }
  if (rc.cross_layer_equalization) m["equalized_pairs"] = info.equalized_pairs;
  if (rc.bias_correction) {
    m["bias_corrected"] = info.bias_corrected.size();
    m["bias_not_corrected"] = info.bias_not_corrected;
  }
  return m;
}

// What keeping each of the worst layers' tensors float buys: for up to kRecoveryLayers of `chosen`'s
// worst layers, the model rewritten with those nodes float, validated on the first kRecoverySamples
// samples against `chosen` on the same samples.
std::vector<Recovery> MeasureRecovery(const Graph& float_graph, const FallbackCandidate& chosen, const FallbackRewrite& rewrite,
                                      const SampleSourceFactory& data, const SampleOptions& vo) {
  std::vector<Recovery> recovery;
  SampleOptions ro = vo;
  ro.max_samples = kRecoverySamples;
  const ValidationResult& result = chosen.result;
  double base = WorstOutputSqnr(result);
  if (result.samples > kRecoverySamples && !result.layers.empty()) {
    Batches subset{data(float_graph, ro)};
    base = WorstOutputSqnr(Validate(float_graph, *chosen.graph, {}, subset.source(), nullptr, false));
  }
  std::set<std::vector<std::string>> tried;
  for (const LayerStats& l : result.layers) {
    if (static_cast<int>(recovery.size()) >= kRecoveryLayers) break;
    const std::vector<std::string> nodes = NodesToUnquantize(float_graph, chosen.info.quantized_by, l.tensor);
    if (nodes.empty() || tried.count(nodes)) continue;
    tried.insert(nodes);
    QuantizationOptions excluded = chosen.options;
    excluded.exclude_nodes.insert(excluded.exclude_nodes.end(), nodes.begin(), nodes.end());
    const FallbackCandidate cx = rewrite(excluded);
    const Graph gx = GraphFromModel(cx.model, cx.data->folder(), "quantized model");
    Batches again{data(float_graph, ro)};
    const ValidationResult rx = Validate(float_graph, gx, {}, again.source(), nullptr, false);
    Recovery r;
    r.nodes = nodes;
    r.tensor = l.tensor;
    r.output_sqnr_db = WorstOutputSqnr(rx);
    r.samples = rx.samples;
    // -inf (a non-finite output) to anything better is an infinite gain, not inf - inf.
    r.gain_db = std::isinf(base) && base < 0 ? (r.output_sqnr_db > base ? INFINITY : 0.0) : r.output_sqnr_db - base;
    recovery.push_back(r);
  }
  return recovery;
}

}  // namespace

QuantizeSections ParseQuantizeSections(const ConfigFile& config) {
  QuantizeSections s{ParseCalibrationConfig(config.json, config.dir), ParseQuantizationOptions(config.json),
                     ParseValidationConfig(config.json, config.dir)};
  if (s.quant.fallback_auto && !s.val.gate.any()) {
    ThrowUsageError("'quantization.fallback' is \"auto\" but 'validation.gate' sets no threshold to meet");
  }
  return s;
}

QuantizeOutcome RunQuantize(const ConfigFile& config, const QuantizeData& data, const QuantizeHooks& hooks) {
  const QuantizeSections sections = ParseQuantizeSections(config);
  const CalibrationConfig& cal = sections.cal;
  const QuantizationOptions& rc = sections.quant;
  const ValidationConfig& val = sections.val;
  if (!data.calibration) ThrowUsageError("'calibration.data' is required to calibrate");
  if (fs::exists(config.output) && fs::equivalent(config.output, config.model)) {
    ThrowUsageError("'output' is the input model ", config.model, "; ptq never overwrites it");
  }
  const bool quiet = hooks.quiet;
  NewFoldersOf output_folders(config.output);  // scratch and data files are made there before the outputs
  StageProgress progress(quiet);
  std::string stage;  // what hooks.progress hears about
  const auto start = [&](int k, const std::string& name, const std::string& line) {
    stage = name;
    progress.Start(k, name, line);
    if (hooks.progress) hooks.progress(stage, 0, -1);
  };
  const BatchHook hook = !hooks.progress ? BatchHook() : [&](int64_t done, int64_t total) { hooks.progress(stage, done, total); };
  const SampleSourceFactory cal_samples = WatchedSamples(data.calibration, hook);
  const SampleSourceFactory val_samples = WatchedSamples(data.validation ? data.validation : data.calibration, hook);
  start(1, "calibration", "calibrating on " + data.calibration_name);
  // Read by every stage: with its weights in a scratch data file beside the output when they are inside
  // the .onnx file, so that each stage maps them rather than holding its own copy.
  const FloatModel model(config.model, config.output);
  ReturnFreedMemory();  // what reading the model for the scratch copy took
  SampleOptions so;
  so.max_samples = cal.max_samples;
  so.batch_size = cal.batch_size;
  const CalibrationStage calib = RunCalibrationStage(config, model, cal, cal_samples, so, "", quiet);

  start(2, "rewrite", "rewriting");
  const QuantTable table = ParseQuantTable(calib.table, "calibration table");
  const std::string& model_digest = calib.model_digest;
  const auto metadata = QuantizedModelMetadata(config, Sha256Hex(calib.table), model_digest);
  // Each rewrite writes its large tensors to its own data file beside the output as it makes them: no
  // model is held twice.
  const auto rewrite = [&](const QuantizationOptions& o) {
    FallbackCandidate c;
    c.options = o;
    c.data = std::make_shared<ExternalDataWriter>(config.output);
    c.model = RewriteModel(model.Proto(), model.dir(), table, o, metadata, &c.info, c.data.get());
    return c;
  };
  FallbackCandidate chosen = rewrite(rc);
  if (!quiet) {
    for (const auto& s : chosen.info.skipped) std::cerr << "ptq: note: stays float: " << s << "\n";
    for (const auto& w : chosen.info.warnings) std::cerr << "ptq: warning: " << w << "\n";
    if (rc.bias_correction) {
      std::cerr << "ptq: bias correction: " << chosen.info.bias_corrected.size() << " node(s) corrected, "
                << chosen.info.bias_not_corrected.size() << " not\n";
    }
  }

  const std::string& val_name = data.validation ? data.validation_name : data.calibration_name;
  start(3, "validation", "validating on " + val_name);
  // The float reference: the input model, or with cross-layer equalization or SmoothQuant the equalized
  // and smoothed model the int8 model was made from (equal in float up to rounding; its tensors are what
  // the int8 tensors stand for).
  const bool prepared = table.equalized || !table.smoothing.empty();
  auto float_graph = std::make_unique<const Graph>(prepared ? LoadPreparedGraph(model, table.equalized, table.smoothing)
                                                            : GraphFromModel(model.Proto(), model.dir(), model.path()));
  SampleOptions vo;
  vo.batch_size = cal.batch_size;
  Tensor labels;
  if (!val.labels.empty()) labels = ReadNpy(val.labels);
  const auto measure = [&](FallbackCandidate* c) {
    c->graph = std::make_shared<const Graph>(GraphFromModel(c->model, c->data->folder(), "quantized model"));
    Batches batches{val_samples(*float_graph, vo)};
    c->result = Validate(*float_graph, *c->graph, c->info.twins, batches.source(), val.labels.empty() ? nullptr : &labels,
                         true, val.tasks);
    AttachReaders(c->info, &c->result);
  };
  measure(&chosen);
  if (!labels.empty_value() && labels.size() < chosen.result.samples) {
    ThrowDataError(val.labels, ": ", labels.size(), " labels for ", chosen.result.samples, " validation samples");
  }

  // quantization.fallback "auto": keep the fewest nodes float that make the gate pass.
  nlohmann::json fallback;
  if (rc.fallback_auto && !GateFailures(chosen.result, val.gate).empty()) {
    if (!quiet) {
      std::cerr << "ptq: fallback: the gate fails (worst output " << WorstOutputSqnr(chosen.result)
                << " dB); measuring up to " << rc.fallback_budget << " models with nodes kept float\n";
    }
    std::map<std::string, Tensor> batch;
    int64_t n = 0;
    val_samples(*float_graph, vo)->Next(&batch, &n);
    const int64_t bytes_before = ModelBytes(chosen.model, *chosen.data);
    const double seconds_before = MedianRunSeconds(chosen.graph, batch);
    FallbackOutcome fb = AutoFallback(*float_graph, val.gate, rc.fallback_budget, std::move(chosen), rewrite, measure);
    chosen = std::move(fb.final);
    const double seconds_after = MedianRunSeconds(chosen.graph, batch);
    fallback = FallbackJson(fb, bytes_before, ModelBytes(chosen.model, *chosen.data), seconds_before, seconds_after);
    if (!quiet) {
      std::cerr << "ptq: fallback: " << fb.kept.size() << " step(s) after " << fb.runs << " model(s): " << fb.stopped << "\n";
    }
  }
  if (prepared) {
    // The outputs are judged against the user's model itself, not the equalized or smoothed one the
    // layers are compared with (equal in float up to rounding; a defect there would show here).
    const Graph input_graph = GraphFromModel(model.Proto(), model.dir(), model.path());
    Batches again{val_samples(input_graph, vo)};
    ValidationResult vs_input =
        Validate(input_graph, *chosen.graph, {}, again.source(), val.labels.empty() ? nullptr : &labels, false, val.tasks);
    chosen.result.outputs = std::move(vs_input.outputs);
  }
  const std::vector<Recovery> recovery = MeasureRecovery(*float_graph, chosen, rewrite, val_samples, vo);
  float_graph.reset();  // the runtime graphs are not needed to write the outputs
  chosen.graph.reset();
  const RewriteInfo& info = chosen.info;
  const ValidationResult& result = chosen.result;

  start(4, "writing", "writing the model and the report");
  std::string report_path = val.report;
  if (report_path.empty()) {
    const fs::path out(config.output);
    report_path = (out.parent_path() / (out.stem().string() + ".report.html")).string();
  }
  const fs::path rp(report_path);
  const std::string json_path =
      rp.extension() == ".json" ? report_path : (rp.parent_path() / (rp.stem().string() + ".json")).string();
  const std::string table_path = cal.table.empty() ? DefaultTablePath(config) : cal.table;
  for (const std::string& path : {table_path, config.output, json_path, report_path}) {
    std::error_code ec;
    if (fs::exists(path, ec) && fs::equivalent(path, config.model, ec)) {
      ThrowUsageError("output ", path, " is the input model ", config.model, "; ptq never overwrites it");
    }
  }
  // On an interrupt the outputs appear all together or not at all (see AtomicFileSet); the model's data
  // file, when it has one, is renamed into place before the model.
  AtomicFileSet outputs;
  outputs.Add(table_path, calib.table);
  const WrittenModel written =
      AddModelFiles(&outputs, std::move(chosen.model), chosen.data.get(), config.output, config.output_external_data);
  nlohmann::json provenance = {{"ptq_version", PTQ_VERSION},
                               {"model", config.model},
                               {"quantized_model", config.output},
                               {"model_sha256", model_digest},
                               {"config_sha256", Sha256Hex(config.json.dump())},
                               {"table_sha256", Sha256Hex(calib.table)},
                               {"method", cal.options.method},
                               {"method_choice", MethodChoiceJson(calib.method_choice)},
                               {"quantization_format", rc.format == QuantFormat::kQdq ? "qdq" : "qoperator"},
                               {"calibration_samples", calib.samples},
                               {"validation_samples", result.samples},
                               {"validation_data", val_name},
                               {"methods", MethodsJson(rc, info)}};
  nlohmann::json model_info = {{"float_bytes", fs::file_size(config.model)},
                               {"int8_bytes", written.model_bytes + written.data_bytes},
                               {"external_data", written.data_file.empty() ? nlohmann::json(nullptr) : nlohmann::json(written.data_file)},
                               {"op_counts", info.op_counts},
                               {"checked", info.checked}};
  nlohmann::json report = ReportJson(result, provenance, model_info, recovery, val.gate, info.warnings);
  if (!fallback.is_null()) report["fallback"] = fallback;
  outputs.Add(json_path, report.dump(1) + "\n");
  if (rp.extension() == ".html") outputs.Add(report_path, RenderHtmlReport(report));
  if (rp.extension() == ".md") outputs.Add(report_path, RenderTerminalReport(report, false, 1000));
  outputs.Commit();
  output_folders.Keep();
  RemoveStaleDataFiles(config.output, written);
  progress.End();
  QuantizeOutcome outcome;
  outcome.gate_failures = GateFailures(result, val.gate);
  outcome.report = std::move(report);
  outcome.model = config.output;
  outcome.data_file = written.data_file;
  outcome.report_path = report_path;
  outcome.json_path = json_path;
  outcome.table_path = table_path;
  return outcome;
}

}  // namespace ptq
