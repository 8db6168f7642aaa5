// The shared body of the fused float-output integer ops (MatMulIntegerToFloat, ConvIntegerToFloat of the
// "ptq.fused" domain, which the session makes from DequantizeLinear -> MatMul/Conv groups): an
// integer op's int32 result scaled per output channel into float32.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: 0 A (x), 1 B (w), 2 a_scale (scalar float), 3 b_scale (1 or C values), 4 a_zero_point,
// 5 b_zero_point, 6 bias (optional, C float values). Output: float32
//   y[..., c, ...] = float(acc[..., c, ...]) * (a_scale * b_scale[c]) + bias[c]
// where acc is `integer_op` (MatMulInteger or ConvInteger) of (A, B, a_zero_point, b_zero_point), the
// product a_scale * b_scale[c] is taken in float32 (as ONNX Runtime's MatMulIntegerToFloat does) and c
// runs over axis `channel_axis` of the result (1 for Conv; -1, the last, for MatMul).
std::unique_ptr<Kernel> MakeIntegerToFloat(const KernelInit& init, KernelFactory integer_op, const char* integer_name,
                                           int channel_axis);

}  // namespace ptq
