// ptq.fused PointwiseDepthwiseConv: a channels-last 1x1 FusedConv and the depthwise FusedConv that alone reads
// its output, as one node (runtime/pointwise_depthwise_fusion.cc), so the tensor between them is never whole.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs X [N, H, W, C], W1 [E, C, 1, 1], B1 [E] or "", W2 [E, 1, KH, KW], B2 [E] or "", all float32, W1 and W2
// constant. Attributes: the depthwise FusedConv's (kernel_shape, strides, pads, dilations, auto_pad, group == E,
// activation_min/max or activation_silu, an element-wise chain as activation_chain_*) and the 1x1's activation as
// pointwise_activation_min/max or pointwise_activation_silu, its chain as pointwise_activation_chain_*. Output
// Y [N, OH, OW, E]: the bits of the two FusedConvs one after the other.
std::unique_ptr<Kernel> MakePointwiseDepthwiseConv(const KernelInit& init);

// The names of the 1x1 convolution's activation attributes.
constexpr const char* kPointwiseActivationMin = "pointwise_activation_min";
constexpr const char* kPointwiseActivationMax = "pointwise_activation_max";
constexpr const char* kPointwiseActivationSilu = "pointwise_activation_silu";
constexpr const char* kPointwiseActivationChainPrefix = "pointwise_activation_chain_";

}  // namespace ptq
