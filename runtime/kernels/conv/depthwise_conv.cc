// Depthwise convolution: per output row and kernel row, one pass that applies every kernel column,
// unrolled (and vectorised over the row) for the common widths 3, 5 and 7.
#include "runtime/kernels/conv/depthwise_conv.h"

#include <algorithm>
#include <vector>

namespace ptq {
namespace {

// The ow in [0, count) with 0 <= ow * stride + offset < size, as [begin, end).
void ValidRange(int64_t count, int64_t stride, int64_t offset, int64_t size, int64_t& begin, int64_t& end) {
  begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  end = size - offset <= 0 ? 0 : (size - offset + stride - 1) / stride;
  end = std::min(end, count);
  begin = std::min(begin, end);
}

// yrow[ow] += sum_kw wk[kw] * xrow[ow * sw + kw * dw + off] for ow in [begin, end), where every
// tap is inside the row. KW > 0 fixes the kernel width at compile time; kUnit means sw = dw = 1.
template <class T, int KW, bool kUnit>
void InteriorTaps(const T* xrow, const T* wk, int64_t kw_count, int64_t sw, int64_t dw, int64_t off, int64_t begin,
                  int64_t end, T* yrow) {
  const int64_t n = KW > 0 ? KW : kw_count;
  for (int64_t ow = begin; ow < end; ++ow) {
    T s = yrow[ow];
    for (int64_t kw = 0; kw < n; ++kw) {
      s += wk[kw] * (kUnit ? xrow[ow + kw + off] : xrow[ow * sw + kw * dw + off]);
    }
    yrow[ow] = s;
  }
}

template <class T, int KW>
void InteriorTapsAnyStride(const T* xrow, const T* wk, int64_t kw_count, int64_t sw, int64_t dw, int64_t off,
                           int64_t begin, int64_t end, T* yrow) {
  if (sw == 1 && dw == 1) {
    InteriorTaps<T, KW, true>(xrow, wk, kw_count, sw, dw, off, begin, end, yrow);
  } else {
    InteriorTaps<T, KW, false>(xrow, wk, kw_count, sw, dw, off, begin, end, yrow);
  }
}

// How one kernel row meets one output row (the same for every row): the outputs [lo, hi) have
// every tap inside the input row; each other output ow uses the taps [kw_begin, kw_end).
struct RowPlan {
  int64_t lo = 0;
  int64_t hi = 0;
  std::vector<int64_t> edge_ow, kw_begin, kw_end;
};

RowPlan MakeRowPlan(int64_t KW, int64_t W, int64_t OW, int64_t sw, int64_t dw, int64_t pw) {
  RowPlan p;
  p.hi = OW;
  for (int64_t kw = 0; kw < KW; ++kw) {
    int64_t begin, end;
    ValidRange(OW, sw, kw * dw - pw, W, begin, end);
    p.lo = std::max(p.lo, begin);
    p.hi = std::min(p.hi, end);
  }
  if (p.lo >= p.hi) p.lo = p.hi = OW;  // no interior: every output is an edge
  for (int64_t ow = 0; ow < OW; ++ow) {
    if (ow >= p.lo && ow < p.hi) continue;
    int64_t begin, end;  // kw with 0 <= ow * sw + kw * dw - pw < W
    ValidRange(KW, dw, ow * sw - pw, W, begin, end);
    p.edge_ow.push_back(ow);
    p.kw_begin.push_back(begin);
    p.kw_end.push_back(end);
  }
  return p;
}

// One kernel row applied to one output row: edges tap by tap, the interior in one pass.
template <class T>
void RowTaps(const T* xrow, const T* wk, const RowPlan& p, int64_t KW, int64_t sw, int64_t dw, int64_t pw, T* yrow) {
  for (size_t e = 0; e < p.edge_ow.size(); ++e) {
    const int64_t ow = p.edge_ow[e];
    T s = T(0);
    for (int64_t kw = p.kw_begin[e]; kw < p.kw_end[e]; ++kw) s += wk[kw] * xrow[ow * sw + kw * dw - pw];
    yrow[ow] += s;
  }
  switch (KW) {
    case 3: InteriorTapsAnyStride<T, 3>(xrow, wk, KW, sw, dw, -pw, p.lo, p.hi, yrow); break;
    case 5: InteriorTapsAnyStride<T, 5>(xrow, wk, KW, sw, dw, -pw, p.lo, p.hi, yrow); break;
    case 7: InteriorTapsAnyStride<T, 7>(xrow, wk, KW, sw, dw, -pw, p.lo, p.hi, yrow); break;
    default: InteriorTapsAnyStride<T, 0>(xrow, wk, KW, sw, dw, -pw, p.lo, p.hi, yrow); break;
  }
}

}  // namespace

template <class T>
void DepthwiseConv(const T* x, const T* w, const ConvGeometry& g, T* y) {
  const SlidingWindow& win = g.window;
  const bool one_d = win.rank() == 1;
  const int64_t H = one_d ? 1 : win.input[0], W = win.input.back();
  const int64_t OH = one_d ? 1 : win.output[0], OW = win.output.back();
  const int64_t KH = one_d ? 1 : win.kernel[0], KW = win.kernel.back();
  const int64_t sh = one_d ? 1 : win.strides[0], sw = win.strides.back();
  const int64_t dh = one_d ? 1 : win.dilations[0], dw = win.dilations.back();
  const int64_t ph = one_d ? 0 : win.pads_begin[0], pw = win.pads_begin.back();
  const int64_t multiplier = g.out_channels_per_group();
  const RowPlan plan = MakeRowPlan(KW, W, OW, sw, dw, pw);
  for (int64_t m = 0; m < g.out_channels; ++m) {
    const T* in = x + (m / multiplier) * H * W;
    const T* wk = w + m * KH * KW;
    T* out = y + m * OH * OW;
    for (int64_t oh = 0; oh < OH; ++oh) {
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * sh - ph + kh * dh;
        if (ih >= 0 && ih < H) RowTaps(in + ih * W, wk + kh * KW, plan, KW, sw, dw, pw, out + oh * OW);
      }
    }
  }
}

template void DepthwiseConv<float>(const float*, const float*, const ConvGeometry&, float*);
template void DepthwiseConv<double>(const double*, const double*, const ConvGeometry&, double*);

}  // namespace ptq
