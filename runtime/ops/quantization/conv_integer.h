// ConvInteger (opset 10+): integer convolution of uint8/int8 x and w into int32.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: x, w, optional x_zero_point (scalar), optional w_zero_point (scalar or [M]).
// Output: y int32 [N, M, O1..On]. Attributes: auto_pad, dilations, group, kernel_shape, pads, strides.
std::unique_ptr<Kernel> MakeConvInteger(const KernelInit& init);
// The kernel behind ConvInteger (to_float false) and ptq.fused ConvIntegerToFloat (integer_to_float.h).
std::unique_ptr<Kernel> MakeConvIntegerKernel(const KernelInit& init, bool to_float);

}  // namespace ptq
