// Parsing of the calibration section of the config.
#include "calibrate/calibration_config.h"

#include <filesystem>

#include "calibrate/range_method.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"

namespace ptq {

namespace {

std::string Resolve(const std::string& dir, const std::string& path) { return ResolveConfigPath(dir, path); }

}  // namespace

CalibrationConfig ParseCalibrationConfig(const nlohmann::json& config, const std::string& config_dir) {
  CalibrationConfig c;
  static const nlohmann::json kEmpty = nlohmann::json::object();
  const nlohmann::json& cal = config.contains("calibration") ? config.at("calibration") : kEmpty;
  JsonSection s(cal, "calibration",
                {"data", "max_samples", "batch_size", "method", "percentile", "softmax_output", "table"});
  c.data = Resolve(config_dir, s.GetString("data", ""));
  c.max_samples = s.GetInt("max_samples", -1, 1);
  c.batch_size = s.GetInt("batch_size", 1, 1);
  std::vector<std::string> methods = RangeMethodNames();
  methods.push_back("auto");  // chosen per model by measurement (cli/auto_range_method.h)
  c.options.method = s.GetChoice("method", kDefaultRangeMethod, methods);
  c.options.percentile = s.GetNumber("percentile", 99.999);
  if (!(c.options.percentile > 0 && c.options.percentile <= 100)) {
    ThrowUsageError("'calibration.percentile' must be in (0, 100], got ", c.options.percentile);
  }
  c.options.softmax_calibrated = s.GetChoice("softmax_output", "calibrated", {"calibrated", "fixed"}) == "calibrated";
  c.table = Resolve(config_dir, s.GetString("table", ""));

  c.options.quant = ParseQuantizationOptions(config);
  return c;
}

}  // namespace ptq
