// calibration.method "auto": the range method chosen per model by measuring it — each candidate's table
// is rewritten into an int8 model and run beside the float model on the first calibration samples.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "calibrate/calibration_config.h"
#include "calibrate/sample_source.h"
#include "cli/float_model.h"
#include "runtime/graph.h"

namespace ptq {

inline constexpr const char* kAutoRangeMethod = "auto";
// The candidates "auto" measures, in order of preference on a tie.
const std::vector<std::string>& AutoRangeCandidates();  // mse, minmax
// Samples of the calibration data each candidate is measured on (at most).
inline constexpr int64_t kAutoRangeSamples = 32;

struct RangeMethodChoice {
  std::string chosen;
  std::vector<std::pair<std::string, double>> scores;  // candidate -> worst output SQNR (dB)
  int64_t samples = 0;
};

// For each candidate: ChooseQuantization with that method on a copy of `result` (histograms collected
// once), RewriteModel of `model` with that table (cal.options.quant, bias correction not applied),
// and the worst output SQNR of the int8 model against `graph` (the prepared float graph) on the first
// kAutoRangeSamples samples of `samples` (the calibration data). The best candidate's parameters are left in `result`.
RangeMethodChoice ChooseRangeMethod(const FloatModel& model, const CalibrationConfig& cal, const Graph& graph,
                                    const SampleSourceFactory& samples, const SampleOptions& options,
                                    CalibrationResult* result);

}  // namespace ptq
