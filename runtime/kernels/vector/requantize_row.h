// Requantization of a row of int32 accumulators to 8 bits (or int32), vectorised per instruction set.
#pragma once

#include <cstdint>

#include "runtime/kernels/int8_gemm/int8_gemm.h"

namespace ptq {

// For i in [0, n), with a = acc[i] + bias (int32, wrapping):
//   kInt32: out[i] = a
//   kUint8 / kInt8: out[i] = RequantizeValue(a, multiplier, y_zero_point, qmin, qmax) of the type
// (runtime/quant_math.h), bit for bit on every instruction set.
void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out);
// The same with accumulators held in float, each an integer of magnitude below 2^24 (exact).
void RequantizeRow(const float* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out);

// Per element (a row of channels, channels last): a = acc[i] + bias[i] (bias may be null), then as
// RequantizeRow with multiplier[i], or for kFloat out[i] = float(a) * multiplier[i] + float_bias[i] (a
// multiply, then an add; float_bias may be null). acc holds integers below 2^24 in magnitude.
void RequantizeChannels(const float* acc, int64_t n, const int32_t* bias, const float* multiplier,
                        int32_t y_zero_point, Int8Output type, void* out, const float* float_bias = nullptr);

}  // namespace ptq
