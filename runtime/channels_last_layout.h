// Channels-last execution of convolution chains, as ONNX Runtime's NHWC transformer runs integer
// convolutions: 2-D convolutions read and write [N, H, W, C] tensors, the element-wise ops between them
// follow, and Transpose nodes convert at the chain's borders only.
#pragma once

#include "runtime/graph.h"

namespace ptq {

// The attribute that makes a ptq.fused QLinearConv, ConvIntegerToFloat or FusedConv take x as
// [N, H, W, C] and write y as [N, OH, OW, M] (ConvGeometry::channels_last), a ptq.fused
// GlobalAveragePool or QLinearGlobalAveragePool take x as [N, H, W, C] and write [N, 1, 1, C], a
// ptq.fused MaxPool take x as [N, H, W, C] and write [N, OH, OW, C], and a ptq.fused BatchNormalization
// normalise the last axis.
constexpr const char* kChannelsLast = "channels_last";

struct ChannelsLastCount {
  int convs = 0;       // convolutions run channels last
  int followers = 0;   // element-wise nodes that run on the channels-last tensors
  int transposes = 0;  // Transpose nodes added at the borders
  int pointwise_depthwise = 0;  // 1x1 convolutions run with the depthwise one reading them (FusePointwiseDepthwise)

  int total() const { return convs + followers + transposes; }
};

// Returns `graph` (the main graph) with:
//  - every QLinearConv (ai.onnx or ptq.fused), ptq.fused ConvIntegerToFloat, and float32 Conv or
//    ptq.fused FusedConv with a constant 4-D weight replaced by the ptq.fused op (FusedConv for Conv) with
//    channels_last = 1, reading the channels-last twin of x and writing the channels-last twin of y (a
//    tensor named y + "/nhwc");
//  - every element-wise node (the unary ops, Add/Sub/Mul/Div, QuantizeLinear/DequantizeLinear and the fused
//    QLinearAdd/QLinearMul/LookupTable with per-tensor parameters) whose computed inputs all have a
//    channels-last twin replaced by its copy on the twins (constant inputs of rank 4 or less transposed
//    once, scalars as they are), writing twins in turn;
//  - every GlobalAveragePool (float) and ptq.fused QLinearGlobalAveragePool of a tensor with a twin
//    replaced by the ptq.fused op with channels_last = 1 writing [N, 1, 1, C], every MaxPool of a twin with a
//    2-D window and no Indices output by the ptq.fused MaxPool with channels_last = 1, every BatchNormalization
//    (inference, constant parameters) by the ptq.fused one normalising the last axis, every Concat of
//    twins (or 4-D constants) by a Concat along the axis's place in NHWC, and every Resize (opset 11+)
//    of a twin by constant scales or sizes by a Resize with them in NHWC order (all counted as followers);
//  - a Transpose (perm 0 2 3 1) making the twin of each tensor a converted node reads that has none, and a
//    Transpose (perm 0 3 1 2) making the tensor itself back from its twin where another node or a graph
//    output reads it.
// Every tensor of the original graph that a node or graph output reads keeps its name and value; the
// twins are new tensors. Graphs without such convolutions are returned unchanged.
Graph ToChannelsLast(const Graph& graph, ChannelsLastCount* count = nullptr);

// Returns `graph` (after ToChannelsLast) with each ptq.fused FusedConv of the channels-last layout that is a 1x1
// window (stride 1, no padding, one group, constant float32 W1 [E, C, 1, 1], no residual) whose output only a
// depthwise one reads (constant float32 W2 [E, 1, KH, KW], group E, no residual) replaced, with that one, by a
// ptq.fused PointwiseDepthwiseConv (runtime/ops/nn/pointwise_depthwise_conv.h): the same bits, without the
// tensor between them. Adds the number replaced to count->pointwise_depthwise (pointwise_depthwise_fusion.cc).
// REQUIRES: GetCpuFeatures().avx2_fma (the fused kernel's).
Graph FusePointwiseDepthwise(const Graph& graph, ChannelsLastCount* count = nullptr);

}  // namespace ptq
