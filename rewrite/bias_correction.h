// Bias correction: the shift of each output channel that quantizing a node's input and weight causes on
// average over the calibration data, to be subtracted from the node's bias.
#pragma once

#include <string>
#include <vector>

#include "rewrite/rewrite_graph.h"
#include "runtime/quant_table.h"

namespace ptq {

// For a MatMul (x [..., K] times a constant weight [K, N]) or a Conv (x [N, C, ...], weight
// [M, C/group, k...]) with the input parameters `x` (holding the channel means calibration measured,
// calibrate/channel_means.h) and the weight parameters `w`: per output channel,
//   shift[o] = sum over k of Wq[k, o] * E[Q(x)_k] - W[k, o] * E[x_k]
// (for a Conv the sum runs over the input channels of o's group and the kernel window; borders, where
// the window reads padding, are not modelled). Empty when x has no means along the axis the node reads
// as channels (the table has none, or the node is neither).
std::vector<float> BiasShift(const RewriteGraph& g, const onnx::NodeProto& node, const TensorQuant& x, const TensorQuant& w);

}  // namespace ptq
