// The config's `validation` section, parsed once into a plain struct.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/report_json.h"
#include "report/task_config.h"

namespace ptq {

struct ValidationConfig {
  std::string data;    // resolved; "" means: the calibration data
  std::string labels;  // resolved; "" when absent
  std::string report;  // resolved; "" means: <output stem>.report.html beside the output
  TaskSpecs tasks;     // task metrics, by model output
  GateConfig gate;
};

// Parses config["validation"] (absent: defaults). Unknown keys and wrong types are usage errors naming
// the key path; relative paths are resolved against config_dir.
ValidationConfig ParseValidationConfig(const nlohmann::json& config, const std::string& config_dir);

}  // namespace ptq
