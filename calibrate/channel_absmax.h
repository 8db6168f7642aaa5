// SmoothQuant's statistics: the per-channel maximum of |x| (along the last axis) of chosen activations
// over the calibration samples.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "calibrate/sample_source.h"
#include "runtime/graph.h"

namespace ptq {

// Runs `graph` over every batch of `samples` and returns, for each float tensor of `tensors` it
// produced, max |x| per index of its last axis (NaN is skipped; a tensor whose last dimension changes
// between batches is left out).
std::map<std::string, std::vector<float>> CollectChannelAbsMax(const Graph& graph, SampleSource& samples,
                                                               const std::set<std::string>& tensors);

}  // namespace ptq
