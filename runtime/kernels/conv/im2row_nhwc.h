// im2row of a channels-last image for the float convolution: one row of kernel taps x channels per output
// position, the GEMM's A operand.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// For an image [H, W, C] (2 spatial dims) and the channels [c0, c0 + cg) of one group, the rows of the
// output positions of output lines [line_begin, line_end):
//   rows[(o - o_begin) * K + t * cg + c] = image[oh * sh - ph + kh * dh, ow * sw - pw + kw * dw, c0 + c]
// (0 outside the image), o = oh * OW + ow, t = kh * KW + kw, K = KH * KW * cg. T is float or double.
template <class T>
void Im2RowNhwc(const T* image, int64_t C, int64_t c0, int64_t cg, const SlidingWindow& w, int64_t line_begin,
                int64_t line_end, T* rows);

// w [M, cg, KH, KW] of `group` groups (M / group = mg output channels each) as the GEMM's B of each group:
// wt[g][(t * cg + c) * mg + m] = w[g * mg + m, c, t], groups one after the other.
template <class T>
void PackConvWeightsNhwc(const T* w, int64_t M, int64_t cg, int64_t taps, int64_t group, T* wt);

}  // namespace ptq
