// The calibration stage shared by `ptq calibrate` and `ptq quantize`: samples -> statistics -> table text.
#pragma once

#include <string>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_source.h"
#include "cli/auto_range_method.h"
#include "cli/config_file.h"
#include "cli/float_model.h"

namespace ptq {

struct CalibrationStage {
  std::string table;   // the calibration table (JSON text, as written to disk)
  std::string model_digest;  // SHA-256 of the model file, as the table records it
  int64_t samples = 0;
  size_t tensors = 0;
  double seconds = 0;      // the statistics pass, wall time
  double cpu_seconds = 0;  // the statistics pass, CPU time of all of ptq's threads
  RangeMethodChoice method_choice;  // calibration.method "auto": what was measured and chosen (else empty)
};

// Runs the float model over `samples` (the calibration data) with `options` (max_samples, batch_size, shard); with more than one
// kernel thread the statistics run on a background thread. A progress line goes to stderr when it is a
// terminal and `quiet` is false; warnings (data, non-finite and constant tensors) unless `quiet`.
CalibrationStage RunCalibrationStage(const ConfigFile& config, const FloatModel& model, const CalibrationConfig& cal,
                                     const SampleSourceFactory& samples, const SampleOptions& options, const std::string& shard, bool quiet);

}  // namespace ptq
