// The attributes of ptq.fused FusedConv and ConvIntegerToFloat (Conv -> Relu / Clip, fused by
// FuseConvActivations in float_fusion.h; Conv -> SiLU, by FuseSilus): the clamp applied as each output is stored
// (no second pass over the tensor), or the SiLU applied to each block of outputs while it is in cache.
#pragma once

#include "runtime/graph.h"

namespace ptq {

// The clamp bounds FusedConv carries beside Conv's attributes (Relu: 0 and +infinity).
constexpr const char* kActivationMin = "activation_min";
constexpr const char* kActivationMax = "activation_max";
// FusedConv's other activation (an int, 1): y = x * Sigmoid(x) on each output (Conv -> SiLU, fused by FuseSilus
// in silu_fusion.cc), as the Silu node computes it; never with the clamp bounds.
constexpr const char* kActivationSilu = "activation_silu";

// ConvIntegerToFloat's element-wise chain (FuseElementwiseChains, elementwise_chain_fusion.cc): the attributes of
// an ElementwiseChain (ops/math/elementwise_chain.h) under this prefix, applied to each block of outputs after the
// clamp or SiLU, while it is in cache.
constexpr const char* kActivationChainPrefix = "activation_chain_";

// The bounds of Relu or Clip node n: Clip's from its attributes (opset < 11) or constant float32 scalar
// inputs; false when they are computed or of another type, or n is no Relu or Clip.
bool ActivationBounds(const Node& n, const Graph& g, float* lo, float* hi);

// Sets FusedConv's activation attributes on `conv`.
void SetActivation(Node* conv, float lo, float hi);

// The session's ptq.fused ConvIntegerToFloat (runtime/qdq_fuse_matmul_conv.cc), which takes the same
// activation attributes as FusedConv.
bool IsConvIntegerToFloat(const Node& n);

// Whether n already carries a fused activation (a clamp or the SiLU).
bool HasActivation(const Node& n);

}  // namespace ptq
