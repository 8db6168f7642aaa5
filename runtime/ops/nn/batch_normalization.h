// BatchNormalization in inference form: Y = scale * (X - mean) / sqrt(var + epsilon) + B per channel
// (axis 1), with the running mean and variance given as inputs.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// The session's fused form (ptq.fused, runtime/batch_norm_fusion.cc), float32 X only: input 5, a per-channel
// constant added to X first (an Add's, shape [C, 1, 1] or [1, C, 1, 1]); the Relu or Clip after as the attributes
// activation_min / activation_max (runtime/activation_fusion.h); inputs 6 and 7, y_scale and y_zero_point: Y is the
// result quantized as QuantizeLinear would (8 bits). Each step has the bits of its own node.
constexpr int kBatchNormBias = 5;
constexpr int kBatchNormYScale = 6;
constexpr int kBatchNormYZeroPoint = 7;

std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInit& init);

}  // namespace ptq
