// QLinearMatMul: numpy.matmul of quantized tensors, requantized to the output's scale and zero point.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: a, a_scale, a_zero_point, b, b_scale, b_zero_point, y_scale, y_zero_point (all required).
// a, b: uint8 or int8 in any combination; each zero point has its tensor's type; y has
// y_zero_point's type (uint8 or int8). Scales are float32 (float16 and bfloat16 too from opset 21).
// a's scale and zero point are per tensor or per row (scalar, [M] when a is 2-D, [..., M, 1]);
// b's per tensor or per column (scalar, [N], [..., 1, N]); y's per tensor.
std::unique_ptr<Kernel> MakeQLinearMatMul(const KernelInit& init);

}  // namespace ptq
