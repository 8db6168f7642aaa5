// Config file loading and --set overrides.
#include "cli/config_file.h"

#include <algorithm>
#include <filesystem>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"
#include "runtime/sha256.h"

namespace ptq {

namespace fs = std::filesystem;

namespace {

// A config is written by hand: 16 MiB, 32 levels and a million values are far beyond any real one.
const JsonLimits kConfigLimits{int64_t{16} << 20, 32, int64_t{1} << 20};

void ApplySet(nlohmann::json& j, const std::string& assignment) {
  const size_t eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) ThrowUsageError("--set expects key.path=value, got '", assignment, "'");
  const std::string path = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  // JSON dumps (the config digest, --print-config) refuse invalid UTF-8: refuse it here, with the flag.
  try {
    (void)nlohmann::json(assignment).dump();
  } catch (const nlohmann::json::exception&) {
    ThrowUsageError("--set '", assignment, "' is not valid UTF-8");
  }
  nlohmann::json value;
  try {
    value = ParseJsonText(text, "--set " + path, ErrorKind::kUsage, kConfigLimits);
  } catch (const Error&) {
    value = text;  // not JSON: taken as a string
  }
  if (std::count(path.begin(), path.end(), '.') >= 16) ThrowUsageError("--set: key path '", path, "' is too deep");
  nlohmann::json* node = &j;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (key.empty()) ThrowUsageError("--set: empty key in '", path, "'");
    if (!node->is_object()) ThrowUsageError("--set: '", path.substr(0, start - 1), "' is not an object");
    if (dot == std::string::npos) {
      (*node)[key] = value;
      return;
    }
    node = &(*node)[key];
    if (node->is_null()) *node = nlohmann::json::object();
    start = dot + 1;
  }
}

}  // namespace

ConfigFile LoadConfig(const std::string& path, const std::vector<std::string>& sets) {
  const std::string text = ReadFileToString(path, kConfigLimits.max_bytes);
  nlohmann::json json = ParseJsonText(text, path, ErrorKind::kUsage, kConfigLimits);
  for (const std::string& s : sets) ApplySet(json, s);
  const std::string dir = fs::path(path).parent_path().string();
  return ConfigFromJson(std::move(json), dir.empty() ? "." : dir, path);
}

ConfigFile ConfigFromJson(nlohmann::json json, const std::string& dir, const std::string& origin) {
  ConfigFile c;
  c.json = std::move(json);
  JsonSection top(c.json, "", {"model", "output", "output_external_data", "calibration", "quantization", "validation"});
  c.dir = dir;
  auto resolve = [&](const std::string& p) {
    return ResolveConfigPath(c.dir, p);
  };
  if (!top.Has("model")) ThrowUsageError(origin, ": the config needs a 'model' key (the float ONNX model to quantize)");
  c.model = resolve(top.GetString("model", ""));
  const std::string out = top.GetString("output", "");
  c.output = out.empty() ? (fs::path(c.model).parent_path() / (fs::path(c.model).stem().string() + ".int8.onnx")).string()
                         : resolve(out);
  c.output_external_data = ParseExternalDataMode(top.GetString("output_external_data", "auto"), "output_external_data");
  return c;
}

std::string DefaultTablePath(const ConfigFile& config) {
  namespace fs = std::filesystem;
  const fs::path out(config.output);
  return (out.parent_path() / (out.stem().string() + ".calib.json")).string();
}

std::string ModelFolder(const ConfigFile& config) {
  const std::string d = std::filesystem::path(config.model).parent_path().string();
  return d.empty() ? "." : d;
}

std::string CalibrationConfigDigest(const ConfigFile& config) {
  nlohmann::json relevant = {{"calibration", config.json.value("calibration", nlohmann::json::object())},
                             {"quantization", config.json.value("quantization", nlohmann::json::object())}};
  relevant["calibration"].erase("table");
  return Sha256Hex(relevant.dump());
}

std::map<std::string, std::string> QuantizedModelMetadata(const ConfigFile& config, const std::string& table_sha256,
                                                          const std::string& model_sha256) {
  return {{"ptq_version", PTQ_VERSION},
          {"ptq_config_sha256", Sha256Hex(config.json.dump())},
          {"ptq_calibration_table_sha256", table_sha256},
          {"ptq_float_model_sha256", model_sha256}};
}

}  // namespace ptq
