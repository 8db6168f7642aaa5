// The float scaling of the fused float-output integer ops (MatMulIntegerToFloat, ConvIntegerToFloat of
// the "ptq.fused" domain, which the session makes from DequantizeLinear -> MatMul/Conv groups).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernel.h"

namespace ptq {

// Inputs of both ops: 0 A (x), 1 B (w), 2 a_scale (scalar float), 3 b_scale (1 or `channels` floats),
// 4 a_zero_point, 5 b_zero_point, 6 bias (optional, `channels` floats), and for MatMulIntegerToFloat 7
// int_bias (optional, `channels` int32 added to acc, wrapping: the QOperator form's MatMulInteger + Add
// + DequantizeLinear, with a_scale 1), for ConvIntegerToFloat 7 residual (optional, float32, added to y before
// its activation: the session's FuseConvSums), 8 y_scale and 9 y_zero_point (optional, one float32 and one
// 8-bit value: the session's FuseConvOutputGroups; the output is then QuantizeLinear(y) of that type, each block
// of y quantized by the thread that stored it while in cache, the bits of the two nodes). Output: float32
//   y[..., c, ...] = float(acc[..., c, ...]) * (a_scale * b_scale[c]) + bias[c]
// with acc the integer op's int32 result (MatMulInteger / ConvInteger of A, B and the zero points), the
// product a_scale * b_scale[c] taken in float32 (as ONNX Runtime's MatMulIntegerToFloat does), a
// multiply then an add (no FMA); c is the output channel (Conv) or column (MatMul).
constexpr int kToFloatAZeroPoint = 4;
constexpr int kToFloatBZeroPoint = 5;
constexpr int kToFloatIntBias = 7;
constexpr int kToFloatResidual = 7;
constexpr int kToFloatYScale = 8;
constexpr int kToFloatYZeroPoint = 9;

struct FloatScaling {
  std::vector<float> multiplier;  // a_scale * b_scale[c], `copies` times over
  std::vector<float> bias;        // bias[c] (0 when absent), `copies` times over
};

// Reads and checks inputs 2, 3 and 6 for `channels` channels, repeated `copies` times (one per B matrix).
FloatScaling ReadFloatScaling(const KernelContext& ctx, int64_t channels, int64_t copies = 1);

}  // namespace ptq
