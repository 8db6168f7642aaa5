// Conv: n-D convolution with groups, strides, dilations, pads/auto_pad and an optional bias.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs X [N, C, D1..Dn], W [M, C / group, k1..kn], optional B [M]; float32, float64, float16 or
// bfloat16 (computed in float32). Output Y [N, M, O1..On] as conv_geometry.h resolves it. Opsets 1-21.
std::unique_ptr<Kernel> MakeConv(const KernelInit& init);

}  // namespace ptq
