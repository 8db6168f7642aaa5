// The effective config (every key of shared/config.md with its default filled in), for --print-config.
#pragma once

#include <nlohmann/json.hpp>

#include "calibrate/calibration_config.h"
#include "cli/config_file.h"
#include "report/validation_config.h"
#include "runtime/quantization_options.h"

namespace ptq {

// Paths are resolved; a default that depends on the model (quantization.opset) is shown as the value
// that will be used.
nlohmann::json EffectiveConfig(const ConfigFile& config, const CalibrationConfig& cal, const QuantizationOptions& rc,
                               const ValidationConfig& val);

}  // namespace ptq
