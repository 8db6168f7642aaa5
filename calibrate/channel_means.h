// Bias correction's statistics: per channel of each activation a Conv, MatMul or Gemm multiplies by a
// constant weight, the mean of its float values and of those values quantized with their chosen parameters.
#pragma once

#include <map>
#include <string>

#include "calibrate/calibrator.h"
#include "calibrate/sample_source.h"
#include "runtime/graph.h"

namespace ptq {

// The tensors bias correction needs and their channel axis: the activation input of a Conv (axis 1), of
// a MatMul with a constant weight (its last axis, -1 here) and of a Gemm with a constant B and transA 0
// (axis 1), for op types `options.quant` quantizes and tensors `result` holds with per-tensor
// parameters. A tensor read along different axes by different nodes is left out.
std::map<std::string, int64_t> ChannelMeanTensors(const Graph& graph, const CalibrationOptions& options,
                                                  const CalibrationResult& result);

// Runs `graph` over every batch of `samples` (a second pass, after ChooseQuantization) and fills
// mean_axis, float_mean and quantized_mean of the tensors ChannelMeanTensors names: the mean over every
// other axis of x and of DequantizeValue(QuantizeValue(x)) with the tensor's scale and zero point, over
// the finite values (NaN and +-Inf left out, as the histograms leave them out).
void CollectChannelMeans(const Graph& graph, SampleSource& samples, const CalibrationOptions& options,
                         CalibrationResult* result);

}  // namespace ptq
