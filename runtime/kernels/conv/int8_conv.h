// Integer convolution on the int8 GEMM kernels: output positions as rows (im2row of x), weights packed
// per group once, int32 or requantized output. Results equal IntConvReference (+ RequantizeValue) bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/int8_gemm/int8_gemm.h"
#include "runtime/tensor.h"

namespace ptq {

// The weights of each group as a GEMM B operand [C/group * kernel points, M/group], with zero points.
struct PackedInt8ConvWeights {
  Shape w_shape;
  DataType dtype = DataType::kUint8;
  int64_t group = 1;
  // The order of k = (channel c, kernel point t) in B and in the im2row rows: t * C/group + c when
  // true (channels-last, for 4 or more channels per group), else c * kernel points + t.
  bool channels_last = false;
  std::vector<PackedInt8B> groups;
  // Depthwise weights (one input channel a group, at most kMaxExactDepthwiseTaps taps): w - w_zero_point as
  // float, taps major (CenteredDepthwiseWeights); else empty.
  std::vector<float> depthwise;
};

// Whether `threads` threads take whole images of a batch, each image's work as Int8GemmWork weighs it: enough work in
// all (kInt8ParallelWork), and no image big enough to be shared out by itself unless the images divide evenly.
bool Int8ConvSharesImages(int64_t batch, int64_t work_per_image, int threads);

// w is uint8/int8 [M, C/group, k1..kn]; w_zero_points holds 1 or M values. channels_last_input packs
// for channels-last inputs (ConvGeometry::channels_last) whatever the number of channels.
// REQUIRES: group >= 1 divides M.
PackedInt8ConvWeights PackInt8ConvWeights(const Tensor& w, const std::vector<int32_t>& w_zero_points, int64_t group,
                                          bool channels_last_input = false);

// acc[b, m, o] = IntConvReference(...)[b, m, o] + bias[m] (int32, wrapping; bias may be null); stored as
// int32 (out == kInt32), as RequantizeValue(acc, multiplier[m], y_zero_point) in y's 8-bit type, or as
// float32 float(acc) * multiplier[m] + float_bias[m] (kFloat; float_bias may be null).
// `packed` (may be null) is w packed by PackInt8ConvWeights with the same zero points and group.
// With geometry.channels_last, x and y are channels last ([N, D.., C] and [N, O.., M]): a pointwise
// convolution is then one GEMM on x itself, and no output is transposed.
// With float output, `finish` (may be null) is applied in place to every output value, always as finish(p, n)
// on n values of y from p (a pointer into y): channels last, to each block of output rows by the thread that
// stored it while it is in cache; else to all of y at the end. With `sink` too (may be null), the finished values
// then go to sink(values, n, at), `at` their place in y: the GEMM paths (channels last, not depthwise) finish them in
// a buffer of their own and never write y (finish must then not depend on where its values are); the others store
// y, finish it and hand it over from y.
// REQUIRES: geometry = ResolveConvGeometry(attrs, x.shape(), w.shape()) (or ResolveConvGeometryChannelsLast)
// with at most 3 spatial axes; y has geometry.output_shape().
void Int8Conv(const Tensor& x, int32_t x_zero_point, const Tensor& w, const std::vector<int32_t>& w_zero_points,
              const ConvGeometry& geometry, const PackedInt8ConvWeights* packed, const int32_t* bias, Int8Output out,
              const float* multiplier, int32_t y_zero_point, Tensor& y, const float* float_bias = nullptr,
              const FloatRowFinish* finish = nullptr, const FloatRowSink* sink = nullptr);

}  // namespace ptq
