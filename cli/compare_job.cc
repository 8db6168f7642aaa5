// RunCompare: loading both models, the pass over the samples, provenance and the report's files.
#include "cli/compare_job.h"

#include <onnx/onnx_pb.h>

#include <filesystem>
#include <memory>

#include "report/compare_models.h"
#include "report/html_report.h"
#include "report/model_inspect.h"
#include "report/terminal_report.h"
#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/model_io.h"
#include "runtime/npy.h"
#include "runtime/sha256.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;

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
    if (fs::exists(out, ec) && fs::equivalent(out, m, ec)) ThrowUsageError("report ", out, " is the model ", m);
  }
}

}  // namespace

CompareOutcome RunCompare(const CompareRequest& r) {
  const std::string& report_path = r.report_path;
  const fs::path rp(report_path);
  if (!report_path.empty() && rp.extension() != ".json" && rp.extension() != ".html" && rp.extension() != ".md") {
    ThrowUsageError("report ", report_path, ": the name must end in .json, .html or .md");
  }
  const std::string json_path =
      rp.extension() == ".json" ? report_path : (rp.parent_path() / (rp.stem().string() + ".json")).string();
  if (!report_path.empty()) {
    RefuseModelPath(report_path, {r.float_path, r.int8_path});
    RefuseModelPath(json_path, {r.float_path, r.int8_path});
  }
  const LoadedModel f = Load(r.float_path);
  const LoadedModel q = Load(r.int8_path);
  const Graph inputs = SharedInputs(*f.graph, *q.graph);
  std::shared_ptr<SampleSource> reader = r.data(inputs, r.options);
  Tensor labels;
  if (!r.labels_path.empty()) labels = ReadNpy(r.labels_path);
  CompareOptions options;
  options.labels_name = r.labels_path;
  options.provenance = {{"command", "compare"},
                        {"model", r.float_path},
                        {"quantized_model", r.int8_path},
                        {"model_sha256", f.sha256},
                        {"quantized_model_sha256", q.sha256},
                        {"validation_data", r.data_name}};
  options.model = {{"float_bytes", f.bytes}, {"int8_bytes", q.bytes}};
  const BatchSourceFactory batches = [reader]() -> BatchSource {
    return [reader](std::map<std::string, Tensor>* b, int64_t* n) { return reader->Next(b, n); };
  };
  CompareOutcome out;
  out.report = CompareModels(*f.graph, *q.graph, batches, r.labels_path.empty() ? nullptr : &labels, options);
  if (!q.ptq_float_sha256.empty() && q.ptq_float_sha256 != f.sha256) {
    out.report["warnings"].push_back(r.int8_path + " was made by ptq from a float model with another SHA-256 (" +
                                     q.ptq_float_sha256 + ") than " + r.float_path + " (" + f.sha256 + ")");
  }
  out.warnings = reader->warnings();
  for (const auto& w : out.report["warnings"]) out.warnings.push_back(w.get<std::string>());
  if (!report_path.empty()) {
    AtomicFileSet files;  // the report's files appear together, each complete
    files.Add(json_path, out.report.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
    if (rp.extension() == ".html") files.Add(report_path, RenderHtmlReport(out.report));
    if (rp.extension() == ".md") files.Add(report_path, RenderTerminalReport(out.report, false, 1000));
    files.Commit();
    out.json_path = json_path;
  }
  return out;
}

}  // namespace ptq
