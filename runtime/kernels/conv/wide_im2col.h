// im2col for stride-1 windows through a zero-padded copy, one contiguous copy per row ("wide" columns).
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// With 1 or 2 spatial dims (1-D read as height 1) and stride 1, output (oh, ow) reads the padded
// plane at (oh + kh * dh, ow + kw * dw). Over a plane of padded width EW = OW + (KW - 1) * dw, a
// whole im2col row is then the contiguous run starting at kh * dh * EW + kw * dw, if each output row
// is given EW columns instead of OW: the columns ow >= OW are garbage that the caller drops.
struct WideLayout {
  int64_t padded_h = 0;     // EH = OH + (KH - 1) * dh
  int64_t padded_w = 0;     // EW
  int64_t padded_size = 0;  // elements of the padded copy of all channels, with slack for the last row reads
  int64_t cols = 0;         // columns of the wide im2col matrix: OH * EW
};

// True for windows WideIm2ColRows handles: 1 or 2 spatial dims, all strides 1.
bool IsWideIm2ColWindow(const SlidingWindow& w);

WideLayout MakeWideLayout(int64_t channels, const SlidingWindow& w);

// The rows of the wide im2col matrix without copying them: padded (layout.padded_size elements) = x
// zero-padded, channel planes of EH x EW; then
//   rows[c * KH * KW + kh * KW + kw][oh * EW + ow] = x[c, oh - ph + kh * dh, ow - pw + kw * dw]
// (0 outside x) for ow < OW, each row a view of `cols` elements into padded.
// REQUIRES: IsWideIm2ColWindow(w); T is float or double; rows holds channels * KH * KW pointers.
template <class T>
void WideIm2ColRows(const T* x, int64_t channels, const SlidingWindow& w, const WideLayout& layout, T* padded,
                    const T** rows);

}  // namespace ptq
