// The quantize job behind `ptq quantize` and the Python module's ptq.quantize: calibrate -> rewrite ->
// validate -> report, every output written together at the end.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_source.h"
#include "cli/config_file.h"
#include "report/validation_config.h"

namespace ptq {

// The config's sections the job reads.
struct QuantizeSections {
  CalibrationConfig cal;
  QuantizationOptions quant;
  ValidationConfig val;
};

// Parses them (usage errors name the key) and checks them together: quantization.fallback "auto" needs
// a validation.gate threshold.
QuantizeSections ParseQuantizeSections(const ConfigFile& config);

// Where the samples come from.
struct QuantizeData {
  SampleSourceFactory calibration;  // required
  std::string calibration_name;     // names it in progress lines and the report (calibration.data's path)
  SampleSourceFactory validation;   // empty: the calibration samples
  std::string validation_name;
};

struct QuantizeHooks {
  bool quiet = false;  // no stage lines, notes or warnings on stderr
  // Called with (stage, samples done, the pass's total or -1) when a stage starts (0, -1) and after each
  // batch of its passes over the samples. It may throw to stop the job: nothing is written then.
  std::function<void(const std::string& stage, int64_t done, int64_t total)> progress;
};

struct QuantizeOutcome {
  nlohmann::json report;                   // as written to the JSON report
  std::string model, data_file;            // the quantized model and its external data file ("" when none)
  std::string report_path, json_path, table_path;
  std::vector<std::string> gate_failures;  // validation.gate thresholds not met (the outputs are written)
};

// Runs the job of `config` (its paths resolved, its sections checked by the caller's parse) on `data`.
// Throws ptq::Error for a bad config, model or data, before anything is written; the outputs (table,
// model with its data file, JSON report, HTML or Markdown report) appear together or not at all.
// Uses the kernel threads and the QDQ execution mode set process-wide (SetNumThreads,
// SessionOptions::SetDefaultLiteralQdq).
QuantizeOutcome RunQuantize(const ConfigFile& config, const QuantizeData& data, const QuantizeHooks& hooks);

}  // namespace ptq
