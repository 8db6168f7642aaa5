// Loads the JSON config: top-level keys checked, --set key.path=value overrides applied.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/model_writer.h"

namespace ptq {

struct ConfigFile {
  nlohmann::json json;
  std::string dir;         // the config's folder: relative paths are resolved against it
  std::string model;       // resolved `model` path
  std::string output;      // resolved `output` path (default: <model stem>.int8.onnx beside the model)
  // `output_external_data`: where the output model's tensors go (default auto: external data from 2 GiB).
  ExternalDataMode output_external_data = ExternalDataMode::kAuto;
};

// Reads and parses the config (usage errors name the file, the line and the key), applies each
// "key.path=value" of `sets` (value parsed as JSON, else taken as a string), and checks the top-level keys.
ConfigFile LoadConfig(const std::string& path, const std::vector<std::string>& sets);

// The same for a config already parsed (the Python module's dict): relative paths resolve against `dir`;
// errors name `origin`.
ConfigFile ConfigFromJson(nlohmann::json json, const std::string& dir, const std::string& origin);

// Where the calibration table goes when neither --out/--table nor calibration.table says:
// beside `output`, named <output stem>.calib.json.
std::string DefaultTablePath(const ConfigFile& config);

// The folder of `model` (where its external data lives); "." for a bare file name.
std::string ModelFolder(const ConfigFile& config);

// The digest a calibration table records as config_sha256: the `calibration` (without `table`) and
// `quantization` sections, so that shards of one split share it and merge-stats can check its config.
std::string CalibrationConfigDigest(const ConfigFile& config);

// The metadata_props ptq writes into a quantized model: version and SHA-256 of config, table, model.
std::map<std::string, std::string> QuantizedModelMetadata(const ConfigFile& config, const std::string& table_sha256,
                                                          const std::string& model_sha256);

}  // namespace ptq
