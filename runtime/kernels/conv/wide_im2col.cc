// Stride-1 im2col without the copies: pad each channel once; each im2col row is then a view into it.
#include "runtime/kernels/conv/wide_im2col.h"

#include <algorithm>

namespace ptq {
namespace {

struct Dims2D {
  int64_t H, W, OH, OW, KH, KW, dh, dw, ph, pw;
};

Dims2D As2D(const SlidingWindow& w) {
  const bool one_d = w.rank() == 1;
  return {one_d ? 1 : w.input[0],      w.input.back(),     one_d ? 1 : w.output[0],    w.output.back(),
          one_d ? 1 : w.kernel[0],     w.kernel.back(),    one_d ? 1 : w.dilations[0], w.dilations.back(),
          one_d ? 0 : w.pads_begin[0], w.pads_begin.back()};
}

}  // namespace

bool IsWideIm2ColWindow(const SlidingWindow& w) {
  if (w.rank() < 1 || w.rank() > 2) return false;
  for (int64_t s : w.strides) {
    if (s != 1) return false;
  }
  return true;
}

WideLayout MakeWideLayout(int64_t channels, const SlidingWindow& w) {
  const Dims2D d = As2D(w);
  WideLayout l;
  l.padded_h = d.OH + (d.KH - 1) * d.dh;
  l.padded_w = d.OW + (d.KW - 1) * d.dw;
  l.cols = d.OH * l.padded_w;
  // The last row of the last channel reads up to (KW - 1) * dw elements past its plane.
  l.padded_size = channels * l.padded_h * l.padded_w + (d.KW - 1) * d.dw;
  return l;
}

template <class T>
void WideIm2ColRows(const T* x, int64_t channels, const SlidingWindow& w, const WideLayout& l, T* padded,
                    const T** rows) {
  const Dims2D d = As2D(w);
  const int64_t EH = l.padded_h, EW = l.padded_w, plane = EH * EW;
  // padded[c, ph + h, pw + v] = x[c, h, v] for the part of x that windows reach; 0 elsewhere.
  std::fill(padded, padded + l.padded_size, T(0));
  const int64_t height = std::min(d.H, EH - d.ph), width = std::min(d.W, EW - d.pw);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t h = 0; h < height; ++h) {
      const T* src = x + (c * d.H + h) * d.W;
      std::copy(src, src + width, padded + c * plane + (d.ph + h) * EW + d.pw);
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < d.KH; ++kh) {
      for (int64_t kw = 0; kw < d.KW; ++kw) *rows++ = padded + c * plane + kh * d.dh * EW + kw * d.dw;
    }
  }
}

template void WideIm2ColRows<float>(const float*, int64_t, const SlidingWindow&, const WideLayout&, float*,
                                    const float**);
template void WideIm2ColRows<double>(const double*, int64_t, const SlidingWindow&, const WideLayout&, double*,
                                     const double**);

}  // namespace ptq
