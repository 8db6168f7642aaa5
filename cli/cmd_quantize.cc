// ptq quantize: calibrate -> rewrite -> validate -> report in one command (cli/quantize_job.h), on the
// data of the config's files; prints the summary table.
#include <unistd.h>

#include <iostream>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_reader.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/effective_config.h"
#include "cli/quantize_job.h"
#include "report/terminal_report.h"
#include "report/validation_config.h"
#include "runtime/error.h"
#include "runtime/session.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

constexpr const char* kQuantizeUsage = R"(usage: ptq quantize --config C [--set key=value]... [--threads N] [--literal-qdq] [--quiet] [--print-config]

Calibrates the float model, writes the quantized model, runs both on validation.data (default: the
calibration data) and writes the accuracy report: JSON always, HTML (or Markdown) as validation.report
says, and a summary table on stdout. Exit code 3 when a validation.gate threshold fails (the model and
the report are still written). Nothing is written when a stage fails. The outputs are written together
at the end, each to a temporary file renamed into place; Ctrl-C (exit code 130) leaves the previous ones.
--print-config  print the effective config (defaults filled in) and exit
--threads N     kernel threads (default: one per core)
--literal-qdq   validate a QDQ model node by node in float, as written, instead of with its
                DequantizeLinear -> MatMul/Conv -> QuantizeLinear groups fused on the integer kernels
)";

}  // namespace

int QuantizeCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"config", "set", "threads"}, {"help", "quiet", "print-config", "literal-qdq"});
  if (args.Has("help")) {
    std::cout << kQuantizeUsage;
    return 0;
  }
  const ConfigFile config = LoadConfig(args.Require("config"), args.GetAll("set"));
  const QuantizeSections sections = ParseQuantizeSections(config);
  const CalibrationConfig& cal = sections.cal;
  const ValidationConfig& val = sections.val;
  if (args.Has("print-config")) {
    std::cout << EffectiveConfig(config, cal, sections.quant, val).dump(2) << "\n";
    return 0;
  }
  if (cal.data.empty()) ThrowUsageError("'calibration.data' is required to calibrate");
  SetNumThreads(args.GetInt("threads", 0));
  SessionOptions::SetDefaultLiteralQdq(args.Has("literal-qdq"));
  QuantizeData data;
  data.calibration = FileSamples(cal.data);
  data.calibration_name = cal.data;
  if (!val.data.empty()) {
    data.validation = FileSamples(val.data);
    data.validation_name = val.data;
  }
  QuantizeHooks hooks;
  hooks.quiet = args.Has("quiet");
  const QuantizeOutcome out = RunQuantize(config, data, hooks);
  if (!hooks.quiet) {
    std::cout << RenderTerminalReport(out.report, ::isatty(1) != 0);
    std::cout << "model: " << out.model << (out.data_file.empty() ? "" : " (external data: " + out.data_file + ")")
              << "\nreport: " << out.report_path << (out.report_path != out.json_path ? " and " + out.json_path : "")
              << "\ntable: " << out.table_path << "\n";
  }
  for (const auto& f : out.gate_failures) std::cerr << "ptq: gate failed: " << f << "\n";
  return out.gate_failures.empty() ? 0 : 3;
}

}  // namespace ptq
