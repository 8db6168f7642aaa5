// The float channels-last depthwise convolution over a run of output positions whose taps all lie inside
// the image, the bulk of every depthwise layer (DepthwiseConvNhwc computes the border positions).
#pragma once

#include <cstdint>

namespace ptq {

// Output positions o < count of one output row: y[o * channels + m] = the clamp of
// fma(w[T-1][m], x_T-1, ... fma(w[0][m], x_0, bias[m] or 0)), where tap t reads
// x[o * x_step + tap_offsets[t] + m], taps in order: the operations DepthwiseConvNhwc performs per position.
struct DepthwiseInteriorRow {
  const float* x;                  // tap offsets are relative to position 0's
  int64_t x_step;                  // floats between the taps of consecutive positions (stride * channels)
  const int64_t* tap_offsets;      // `taps` offsets, in floats
  int64_t taps;
  const float* weights;            // [taps][channels]
  const float* bias;               // [channels] or nullptr
  int64_t channels;                // per position, in x and y
  float* y;
  int64_t count;                   // output positions
  bool clamp;                      // the fused activation: y < lo ? lo : y, then hi < y ? hi : y
  float lo, hi;
};

// REQUIRES: GetCpuFeatures().avx2_fma (x86-64 only: elsewhere this aborts).
void DepthwiseInteriorRowF32(const DepthwiseInteriorRow& r);

}  // namespace ptq
