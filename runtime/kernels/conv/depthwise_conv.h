// Direct depthwise convolution (one input channel per group) over one or two spatial dimensions, float
// and integer: each input plane padded once (split into stride phases), then whole output rows at a time.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/int8_gemm/int8_gemm.h"

namespace ptq {

// Whether ConvGeometry g is one DepthwiseConv and Int8DepthwiseConv take: one input channel per group,
// 1 or 2 spatial dimensions.
bool IsDepthwise(const ConvGeometry& g);

// For every image, with M = g.out_channels output channels and C = g.in_channels = g.group inputs:
//   y[n, m, oh, ow] += sum_{kh, kw} w[m, kh, kw] * x[n, m / (M / C), oh * sh - ph + kh * dh, ow * sw - pw + kw * dw]
// over the taps inside x, taps in (kh, kw) order. y must hold the bias (or 0). 1-D windows are read
// as 2-D with height 1, then, when activation.clamp, clamped as GemmEpilogue says (its row_bias is not
// used). Threads share the channels when the work is large enough.
// REQUIRES: IsDepthwise(g); T is float or double.
template <class T>
void DepthwiseConv(const T* x, const T* w, const ConvGeometry& g, T* y, const GemmEpilogue<T>& activation = {});

// The most kernel points for which Int8DepthwiseConv is exact: every product of two 8-bit values less
// their zero points is at most 255 * 255 in magnitude, and a sum of this many stays below 2^24, where
// float32 holds every integer.
constexpr int64_t kMaxExactDepthwiseTaps = (int64_t{1} << 24) / (255 * 255);

// The integer form (ConvInteger, QLinearConv) with the accumulation of int_conv_reference.h:
//   acc[n, m, o] = sum_{kh, kw} (x - x_zero_point) * (w[m, kh, kw] - w_zero_point[m]) + bias[m]
// (padding contributes 0; int32 wrapping for the bias), stored as int32 or as
// RequantizeValue(acc, multiplier[m], y_zero_point) in y's 8-bit type (runtime/quant_math.h), equal bit
// for bit to IntConvReference + RequantizeValue, or as float(acc) * multiplier[m] + float_bias[m] (kFloat). The sums are taken in float32 lanes, exact (see above).
// x and w are 8-bit (signedness given); w_zero_point holds M values; bias may be null.
// REQUIRES: IsDepthwise(g); kernel points <= kMaxExactDepthwiseTaps.
void Int8DepthwiseConv(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                       const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                       const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias = nullptr);

}  // namespace ptq
