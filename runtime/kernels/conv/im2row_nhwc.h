// im2row of a channels-last image for the float convolution: one row of kernel taps x channels per output
// position, the GEMM's A operand.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// For an image [H, W, C] (2 spatial dims) of `group` groups of cg = C / group channels, the rows of the
// output positions of output lines [line_begin, line_end), every group's part one after the other:
//   rows[(o - o_begin) * group * K + g * K + t * cg + c] = image[oh * sh - ph + kh * dh, ow * sw - pw + kw * dw,
//   g * cg + c]
// (0 outside the image), o = oh * OW + ow, t = kh * KW + kw, K = KH * KW * cg: group g's GEMM operand A
// starts at rows + g * K with row stride group * K. T is float or double.
template <class T>
void Im2RowNhwc(const T* image, int64_t C, int64_t group, const SlidingWindow& w, int64_t line_begin,
                int64_t line_end, T* rows);

// Columns [k_begin, k_end) of Im2RowNhwc's rows (one group) for output positions [p_begin, p_end) (o = oh * OW
// + ow): rows[(o - p_begin) * (k_end - k_begin) + k - k_begin], so that a GEMM over a large K can take its A a
// slice of columns at a time. float only.
void Im2RowNhwcSlice(const float* image, int64_t C, const SlidingWindow& w, int64_t p_begin, int64_t p_end,
                     int64_t k_begin, int64_t k_end, float* rows);

// w [M, cg, KH, KW] of `group` groups (M / group = mg output channels each) as the GEMM's B of each group:
// wt[g][(t * cg + c) * mg + m] = w[g * mg + m, c, t], groups one after the other.
template <class T>
void PackConvWeightsNhwc(const T* w, int64_t M, int64_t cg, int64_t taps, int64_t group, T* wt);

}  // namespace ptq
