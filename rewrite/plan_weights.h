// The weight side of the plan: a consumer's weight parameters along the channel axis it needs, and
// weight scales raised where an int32 bias would not fit.
#pragma once

#include <string>
#include <vector>

#include "rewrite/rewrite_graph.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

// The parameters with which node `op_type` quantizes its constant weight `name`: the table's entry
// when it is per tensor or per channel along the axis this consumer needs (WeightChannelAxis), else
// new ones from the weight's values along that axis (a weight shared by differently oriented
// consumers). `entry` is the table's (may be null: then from the values as well).
TensorQuant WeightQuantFor(const RewriteGraph& g, const std::string& name, const std::string& op_type,
                           const TensorQuant* entry, const QuantizationOptions& options);

// Raises the scales of `weight` (per channel, or the one per-tensor scale) so that every channel's
// int32 bias round(bias[c] / (x_scale * w_scale[c])) stays within kMaxQuantizedBias. Returns a
// warning naming the node, the weight and the bias ("" when nothing had to change).
std::string FitBiasInInt32(const RewriteGraph& g, const std::string& bias, float x_scale, const std::string& node,
                           const std::string& weight_name, TensorQuant* weight);

}  // namespace ptq
