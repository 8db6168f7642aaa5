// ptq run: runs a model once on a folder of inputs and writes each output as <output_name>.npy.
#include <filesystem>
#include <iostream>
#include <memory>

#include "cli/args.h"
#include "cli/commands.h"
#include "runtime/feeds.h"
#include "runtime/file_util.h"
#include "runtime/npy.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace ptq {

namespace {
constexpr const char* kRunUsage = R"(usage: ptq run MODEL --inputs DIR --outputs DIR [--threads N] [--literal-qdq]

Runs MODEL once. DIR holds <input_name>.npy per model input (each the whole tensor), or an ONNX
test_data_set_* folder of input_N.pb files. Each output is written to the outputs folder as
<output_name>.npy, with characters that cannot be in a file name replaced by '_'.
A model with ops ptq does not support fails before running, listing every such op and its nodes.
--threads N: threads for kernels (default: one per core).
--literal-qdq: run DequantizeLinear -> MatMul/Conv -> QuantizeLinear groups node by node in float, as
  written, instead of fused on the integer kernels (README "QDQ execution").
)";
}  // namespace

int RunCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"inputs", "outputs", "threads"}, {"help", "literal-qdq"});
  if (args.Has("help")) {
    std::cout << kRunUsage;
    return 0;
  }
  if (args.positional().size() != 1) ThrowUsageError("ptq run takes one MODEL argument (see ptq run --help)");
  const std::string out_dir = args.Require("outputs");
  SetNumThreads(args.GetInt("threads", 0));
  SessionOptions::SetDefaultLiteralQdq(args.Has("literal-qdq"));
  auto graph = std::make_shared<const Graph>(LoadGraph(args.positional()[0]));
  Session session(graph);
  const auto feeds = ReadFeedsFolder(*graph, args.Require("inputs"));
  const std::vector<Tensor> outputs = session.Run(feeds);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) ThrowInputError(out_dir, ": cannot create the outputs folder: ", ec.message());
  AtomicFileSet files;  // all outputs appear together (each renamed into place once all are written)
  std::vector<std::string> paths;
  for (size_t i = 0; i < outputs.size(); ++i) {
    paths.push_back((std::filesystem::path(out_dir) / (SanitizeFileName(graph->outputs[i].name) + ".npy")).string());
    files.Add(paths.back(), EncodeNpy(outputs[i]));
  }
  files.Commit();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::cout << graph->outputs[i].name << " " << DataTypeName(outputs[i].dtype()) << " "
              << ShapeToString(outputs[i].shape()) << " -> " << paths[i] << "\n";
  }
  return 0;
}

}  // namespace ptq
