// ptq compare: the accuracy report for a float model and a quantized one (by ptq or another tool).
#include <unistd.h>

#include <iostream>

#include "calibrate/sample_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/compare_job.h"
#include "report/terminal_report.h"
#include "runtime/error.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

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

}  // namespace

int CompareCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"data", "labels", "report", "batch-size", "max-samples", "threads"},
            {"help", "quiet", "literal-qdq"});
  if (args.Has("help")) {
    std::cout << kCompareUsage;
    return 0;
  }
  if (args.positional().size() != 2) ThrowUsageError("ptq compare takes two models, FLOAT and INT8 (see ptq compare --help)");
  CompareRequest r;
  r.float_path = args.positional()[0];
  r.int8_path = args.positional()[1];
  r.data_name = args.Require("data");
  r.data = FileSamples(r.data_name);
  r.labels_path = args.Get("labels");
  r.report_path = args.Get("report");
  r.options.batch_size = args.GetInt("batch-size", 1);
  r.options.max_samples = args.GetInt("max-samples", -1);
  if (r.options.batch_size < 1) ThrowUsageError("--batch-size must be at least 1");
  if (args.Has("max-samples") && r.options.max_samples < 1) ThrowUsageError("--max-samples must be at least 1");
  const bool quiet = args.Has("quiet");
  SetNumThreads(args.GetInt("threads", 0));
  SessionOptions::SetDefaultLiteralQdq(args.Has("literal-qdq"));
  if (!quiet) std::cerr << "ptq: comparing " << r.float_path << " and " << r.int8_path << " on " << r.data_name << "\n";
  const CompareOutcome out = RunCompare(r);
  if (!quiet) {
    for (const auto& w : out.warnings) std::cerr << "ptq: warning: " << w << "\n";
  }
  if (!quiet || r.report_path.empty()) std::cout << RenderTerminalReport(out.report, ::isatty(1) != 0);
  if (!quiet && !r.report_path.empty()) {
    std::cout << "report: " << r.report_path << (r.report_path != out.json_path ? " and " + out.json_path : "") << "\n";
  }
  return 0;
}

}  // namespace ptq
