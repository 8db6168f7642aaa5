// The float channels-last depthwise convolution over a run of output positions whose taps all lie inside
// the image, the bulk of every depthwise layer (DepthwiseConvNhwc computes the border positions).
#pragma once

#include <cstdint>

namespace ptq {

// Output positions o < count of one output row: y[o * channels + m] = the clamp of
// fma(w[T-1][m], x_T-1, ... fma(w[0][m], x_0, bias[m] or 0)), where tap t reads
// tap_x[t][o * x_step + m], taps in order: the operations DepthwiseConvNhwc performs per position.
struct DepthwiseInteriorRow {
  const float* const* tap_x;       // `taps` pointers: where position 0 reads each tap
  int64_t x_step;                  // floats between the taps of consecutive positions (stride * channels)
  int64_t taps;
  int64_t row_taps;                // taps per kernel row: tap t is (t / row_taps, t % row_taps)
  int64_t dilation;                // along the width: tap_x[t] = tap_x[t - kw] + kw * dilation * channels,
                                   // kw = t % row_taps
  const float* weights;            // [taps][channels]
  const float* bias;               // [channels] or nullptr
  int64_t channels;                // per position, in x and y
  float* y;
  int64_t count;                   // output positions
  bool clamp;                      // the fused activation: y < lo ? lo : y, then hi < y ? hi : y
  float lo, hi;
};

// AVX-512 when the CPU has it, else AVX2. REQUIRES: GetCpuFeatures().avx2_fma (x86-64 only: elsewhere this aborts).
void DepthwiseInteriorRowF32(const DepthwiseInteriorRow& r);

// The same with AVX-512 (depthwise_nhwc_interior_avx512.cc). REQUIRES: GetCpuFeatures().avx512f.
void DepthwiseInteriorRowAvx512(const DepthwiseInteriorRow& r);

}  // namespace ptq
