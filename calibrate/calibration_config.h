// The config's `calibration` section and the `quantization` section (runtime/quantization_options.h),
// parsed once into plain structs. Keys and defaults are those of shared/config.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "calibrate/calibrator.h"

namespace ptq {

struct CalibrationConfig {
  std::string data;          // resolved path; "" when absent
  int64_t max_samples = -1;  // -1: all
  int64_t batch_size = 1;
  std::string table;         // resolved path; "" when absent (the caller picks a default)
  CalibrationOptions options;
};

// Parses `config["calibration"]` (unknown keys and wrong types are usage errors naming the key path)
// and the `quantization` section (ParseQuantizationOptions).
// Relative paths are resolved against `config_dir`.
CalibrationConfig ParseCalibrationConfig(const nlohmann::json& config, const std::string& config_dir);

}  // namespace ptq
