// Depthwise convolution with channels last (ConvGeometry::channels_last), float and integer: every tap of
// an output position is a contiguous run of channels, summed over blocks of channels held in registers.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/int8_gemm/int8_gemm.h"

namespace ptq {

// DepthwiseConv (depthwise_conv.h) on x [N, H, W, C] into y [N, OH, OW, M]: y starts from bias (or 0),
// then y = fma(w[m, t], x[tap t], y) for the taps t in (kh, kw) order (zero padding adds exact zeros),
// then the activation's clamp: the same bits as DepthwiseConv on the NCHW tensors. When set, finish_row(row, n)
// is called on each output row's n values once they are written (a further activation, while in cache).
// REQUIRES: IsDepthwise(g), g.channels_last, 2 spatial dimensions; T is float or double.
template <class T>
void DepthwiseConvNhwc(const T* x, const T* w, const T* bias, const ConvGeometry& g, T* y,
                       const GemmEpilogue<T>& activation, void (*finish_row)(T*, int64_t) = nullptr);

// Int8DepthwiseConv (depthwise_conv.h) with channels last, the same results: taps outside x read
// x_zero_point, sum_t x * (w - w_zero_point) is taken exactly in float32 lanes and
// x_zero_point * sum_t (w - w_zero_point) is taken off in int32 with the bias.
// REQUIRES: IsDepthwise(g), g.channels_last, 2 spatial dimensions, kernel points <= kMaxExactDepthwiseTaps.
void Int8DepthwiseConvNhwc(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                           const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                           const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias);

// acc[m] = sum_{t < taps} float(x[t][m]) * w[t * M + m] for m < M, taps in order, x bytes read as int8 when
// x_signed (AVX-512, AVX2 or portable; exact while the products and sums are integers below 2^24).
void DepthwiseTapsU8(const uint8_t* const* x, bool x_signed, const float* w, int64_t taps, int64_t M, float* acc);
// acc[m] = fma(w[t * M + m], x[t][m], acc[m]) for t < taps in order, for m < M (acc holds the start).
void DepthwiseTapsF32(const float* const* x, const float* w, int64_t taps, int64_t M, float* acc);

}  // namespace ptq
