// Parsing of the calibration section of the config.
#include "calibrate/calibration_config.h"

#include <filesystem>

#include "calibrate/range_method.h"
#include "runtime/json_fields.h"

namespace ptq {

namespace {

std::string Resolve(const std::string& dir, const std::string& path) {
  if (path.empty() || std::filesystem::path(path).is_absolute()) return path;
  return (std::filesystem::path(dir) / path).lexically_normal().string();
}

DataType ParseDtype(const JsonSection& s, const std::string& key, const std::string& def) {
  return s.GetChoice(key, def, {"uint8", "int8"}) == "int8" ? DataType::kInt8 : DataType::kUint8;
}

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
  c.options.method = s.GetChoice("method", "minmax", RangeMethodNames());
  c.options.percentile = s.GetNumber("percentile", 99.999);
  if (!(c.options.percentile > 0 && c.options.percentile <= 100)) {
    ThrowUsageError("'calibration.percentile' must be in (0, 100], got ", c.options.percentile);
  }
  c.options.softmax_calibrated = s.GetChoice("softmax_output", "calibrated", {"calibrated", "fixed"}) == "calibrated";
  c.table = Resolve(config_dir, s.GetString("table", ""));

  // The parts of `quantization` that decide scales; the rewrite stage checks the whole section.
  if (config.contains("quantization") && config.at("quantization").is_object()) {
    const nlohmann::json& q = config.at("quantization");
    if (q.contains("activations")) {
      JsonSection a(q.at("activations"), "quantization.activations", {"dtype", "symmetric", "reduce_range"});
      c.options.activation_dtype = ParseDtype(a, "dtype", "uint8");
      c.options.activation_symmetric = a.GetBool("symmetric", false);
      c.options.reduce_range = a.GetBool("reduce_range", false);
    }
    if (q.contains("weights")) {
      JsonSection w(q.at("weights"), "quantization.weights", {"dtype", "symmetric", "per_channel"});
      c.options.weight_dtype = ParseDtype(w, "dtype", "int8");
      c.options.weight_symmetric = w.GetBool("symmetric", true);
      c.options.per_channel = w.GetBool("per_channel", true);
    }
    JsonSection whole(q, "quantization",
                      {"format", "activations", "weights", "op_types", "attention", "exclude_nodes", "overrides", "opset"});
    if (whole.Has("op_types")) c.options.op_types = whole.GetStringList("op_types");
    c.options.attention = whole.GetBool("attention", true);
  }
  return c;
}

}  // namespace ptq
