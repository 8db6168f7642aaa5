// ptq rewrite: writes the quantized model from the float model, the calibration table and the config.
#include <filesystem>
#include <iostream>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/config_file.h"
#include "cli/rewrite_job.h"
#include "calibrate/calibration_config.h"
#include "runtime/quant_table.h"
#include "rewrite/rewriter.h"
#include "runtime/file_util.h"
#include "runtime/memory_usage.h"
#include "runtime/model_io.h"
#include "runtime/model_writer.h"
#include "runtime/sha256.h"

namespace ptq {
namespace {

constexpr const char* kRewriteUsage = R"(usage: ptq rewrite --config C [--table TABLE] [--out MODEL] [--set key=value]... [--quiet]

Reads the float model and the calibration table (from ptq calibrate) and writes the quantized model:
QOperator form (QLinearMatMul, MatMulInteger, QLinearConv, QuantizeLinear/DequantizeLinear at the
float boundaries) or, with quantization.format "qdq", QuantizeLinear/DequantizeLinear pairs. The model
is not run. The result passes the ONNX checker and strict shape inference before it is written.
--table TABLE  the calibration table (default: calibration.table, else <output stem>.calib.json)
--out MODEL    where to write (default: the config's output; never the input model)
)";

}  // namespace

int RewriteCommand(int argc, char** argv) {
  Args args(argc, argv, 2, {"config", "table", "out", "set"}, {"help", "quiet"});
  if (args.Has("help")) {
    std::cout << kRewriteUsage;
    return 0;
  }
  const ConfigFile config = LoadConfig(args.Require("config"), args.GetAll("set"));
  const CalibrationConfig cal = ParseCalibrationConfig(config.json, config.dir);
  (void)ParseQuantizationOptions(config.json);  // config errors before table errors
  std::string table_path = args.Get("table", cal.table);
  if (table_path.empty()) table_path = DefaultTablePath(config);
  const std::string out = args.Get("out", config.output);
  SetMemoryStage("rewrite");
  const QuantTable table = ReadQuantTable(table_path);
  const RewriteOutcome r = RunRewrite(config, table, table_path, out);
  const RewriteInfo& info = r.info;
  const WrittenModel& written = r.written;
  if (!args.Has("quiet")) {
    for (const auto& s : info.skipped) std::cerr << "ptq: note: stays float: " << s << "\n";
    for (const auto& w : info.warnings) std::cerr << "ptq: warning: " << w << "\n";
    for (const auto& b : info.bias_not_corrected) std::cerr << "ptq: note: bias not corrected: " << b << "\n";
    std::cout << "wrote " << out << " (" << written.model_bytes << " bytes"
              << (written.data_file.empty() ? "" : " and " + std::to_string(written.data_bytes) + " in " + written.data_file)
              << "; float model " << FileSize(config.model) << " bytes); " << info.checked << "\n";
  }
  return 0;
}

}  // namespace ptq
