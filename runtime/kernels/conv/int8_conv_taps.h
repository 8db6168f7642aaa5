// Int8 convolution of channels-last images with the GEMM reading each kernel tap in place (no im2row rows).
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/int8_conv.h"

namespace ptq {

// Whether Int8ConvTaps computes this convolution: channels last, 1 or 2 spatial axes, whole 4-byte runs of channels
// per group, and GEMM kernels that read taps (Int8GemmTakesTaps).
bool Int8ConvTakesTaps(const ConvGeometry& geometry, const PackedInt8ConvWeights& packed);

// Int8Conv's result (its contract, channels last) where Int8ConvTakesTaps holds: each image is padded once (int8
// values made uint8 as they are copied) and each group's GEMM reads its rows from it, one run of channels per tap.
void Int8ConvTaps(const Tensor& x, int32_t x_zero_point, const ConvGeometry& geometry,
                  const PackedInt8ConvWeights& packed, const int32_t* bias, Int8Output out, const float* multiplier,
                  int32_t y_zero_point, Tensor& y, const float* float_bias, const FloatRowFinish* finish,
                  const FloatRowSink* sink = nullptr);

}  // namespace ptq
