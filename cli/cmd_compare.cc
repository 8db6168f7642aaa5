// ptq compare: the accuracy report for a float model and a quantized one (by ptq or another tool).
#include <unistd.h>

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "calibrate/sample_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "report/compare_models.h"
#include "report/html_report.h"
#include "report/model_inspect.h"
#include "report/terminal_report.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/session.h"
#include "runtime/sha256.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

constexpr const char* kCompareUsage = R"(usage: ptq compare FLOAT INT8 --data DIR [--labels L.npy] [--report R] [--batch-size N] [--max-samples N] [--threads N] [--literal-qdq] [--quiet]

Runs FLOAT and INT8 (quantized by ptq or by another tool, QDQ or QOperator) in lock-step on the samples
of DIR and prints the accuracy report's table: per model output max/mean absolute error, RMSE, cosine,
SQNR (and top-1 with --labels), and per 8-bit tensor of INT8 that can be matched to a tensor of FLOAT
(the input of a QuantizeLinear, or a name with a quantizer's suffix: ptq's "/quantized", ONNX Runtime's
"_quantized" and "_QuantizeLinear_Output") its SQNR, worst first. Both models must take the same inputs
(names and types) and have the same outputs (matched by name). DIR is laid out as calibration data: a
folder of <input>.npy, an .npz, or test_data_set_* folders.
--report R       also write the report: R.json as JSON; R.html (HTML) or R.md (Markdown) with the
                 JSON beside it (same name, .json); written only once everything has succeeded
--labels L.npy   int64 class per sample: float and int8 top-1 for outputs of shape [samples, classes]
--batch-size N   samples per run where the inputs' first dim is free (default 1)
--max-samples N  use the first N samples (default: all)
--threads N      kernel threads (default: one per core)
--literal-qdq    run INT8's DequantizeLinear -> MatMul/Conv -> QuantizeLinear groups node by node in float
--quiet          no progress or warnings on stderr, and no table when --report is given
)";

struct LoadedModel {
  std::shared_ptr<const Graph> graph;
  int64_t bytes = 0;
  std::string sha256;
  std::string ptq_float_sha256;  // metadata_props' ptq_float_model_sha256 (models made by ptq)
};

LoadedModel Load(const std::string& path) {
  onnx::ModelProto proto;
  LoadModelProto(path, &proto);
  LoadedModel m;
  m.bytes = ModelBytesOnDisk(proto, path);
  m.sha256 = Sha256FileHex(path);
  for (const auto& p : proto.metadata_props()) {
    if (p.key() == "ptq_float_model_sha256") m.ptq_float_sha256 = p.value();
  }
  const std::string dir = fs::path(path).parent_path().string();
  m.graph = std::make_shared<const Graph>(GraphFromModel(std::move(proto), dir.empty() ? "." : dir, path));
  return m;
}

// An output path must not be one of the models.
void RefuseModelPath(const std::string& out, const std::vector<std::string>& models) {
  for (const std::string& m : models) {
    std::error_code ec;
    if (fs::exists(out, ec) && fs::equivalent(out, m, ec)) ThrowUsageError("--report ", out, " is the model ", m);
  }
}

}  // namespace

int CompareCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"data", "labels", "report", "batch-size", "max-samples", "threads"},
            {"help", "quiet", "literal-qdq"});
  if (args.Has("help")) {
    std::cout << kCompareUsage;
    return 0;
  }
  if (args.positional().size() != 2) ThrowUsageError("ptq compare takes two models, FLOAT and INT8 (see ptq compare --help)");
  const std::string float_path = args.positional()[0], int8_path = args.positional()[1];
  const std::string data = args.Require("data");
  const std::string report_path = args.Get("report");
  const fs::path rp(report_path);
  if (!report_path.empty() && rp.extension() != ".json" && rp.extension() != ".html" && rp.extension() != ".md") {
    ThrowUsageError("--report ", report_path, ": the name must end in .json, .html or .md");
  }
  const std::string json_path =
      rp.extension() == ".json" ? report_path : (rp.parent_path() / (rp.stem().string() + ".json")).string();
  if (!report_path.empty()) {
    RefuseModelPath(report_path, {float_path, int8_path});
    RefuseModelPath(json_path, {float_path, int8_path});
  }
  SampleOptions so;
  so.batch_size = args.GetInt("batch-size", 1);
  so.max_samples = args.GetInt("max-samples", -1);
  if (so.batch_size < 1) ThrowUsageError("--batch-size must be at least 1");
  if (args.Has("max-samples") && so.max_samples < 1) ThrowUsageError("--max-samples must be at least 1");
  const bool quiet = args.Has("quiet");
  SetNumThreads(args.GetInt("threads", 0));
  SessionOptions::SetDefaultLiteralQdq(args.Has("literal-qdq"));

  const LoadedModel f = Load(float_path);
  const LoadedModel q = Load(int8_path);
  const Graph inputs = SharedInputs(*f.graph, *q.graph);
  auto reader = std::make_shared<SampleReader>(SampleReader::Open(inputs, data, so));
  Tensor labels;
  if (args.Has("labels")) labels = ReadNpy(args.Get("labels"));
  if (!quiet) {
    std::cerr << "ptq: comparing " << float_path << " and " << int8_path << " on " << reader->num_samples()
              << " samples of " << data << "\n";
  }
  CompareOptions options;
  options.labels_name = args.Get("labels");
  options.provenance = {{"command", "compare"},
                        {"model", float_path},
                        {"quantized_model", int8_path},
                        {"model_sha256", f.sha256},
                        {"quantized_model_sha256", q.sha256},
                        {"validation_data", data}};
  options.model = {{"float_bytes", f.bytes}, {"int8_bytes", q.bytes}};
  const BatchSourceFactory batches = [reader]() -> BatchSource {
    reader->Rewind();
    return [reader](std::map<std::string, Tensor>* b, int64_t* n) { return reader->Next(b, n); };
  };
  nlohmann::json report = CompareModels(*f.graph, *q.graph, batches, args.Has("labels") ? &labels : nullptr, options);
  if (!q.ptq_float_sha256.empty() && q.ptq_float_sha256 != f.sha256) {
    report["warnings"].push_back(int8_path + " was made by ptq from a float model with another SHA-256 (" +
                                 q.ptq_float_sha256 + ") than " + float_path + " (" + f.sha256 + ")");
  }
  if (!quiet) {
    for (const auto& w : reader->warnings()) std::cerr << "ptq: warning: " << w << "\n";
    for (const auto& w : report["warnings"]) std::cerr << "ptq: warning: " << w.get<std::string>() << "\n";
  }
  if (!report_path.empty()) {
    AtomicFileSet files;  // the report's files appear together, each complete
    files.Add(json_path, report.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    if (rp.extension() == ".html") files.Add(report_path, RenderHtmlReport(report));
    if (rp.extension() == ".md") files.Add(report_path, RenderTerminalReport(report, false, 1000));
    files.Commit();
  }
  if (!quiet || report_path.empty()) std::cout << RenderTerminalReport(report, ::isatty(1) != 0);
  if (!quiet && !report_path.empty()) {
    std::cout << "report: " << report_path << (report_path != json_path ? " and " + json_path : "") << "\n";
  }
  return 0;
}

}  // namespace ptq
