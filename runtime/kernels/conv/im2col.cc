// Unfolding of sliding windows into GEMM operands and the scatter-add back.
#include "runtime/kernels/conv/im2col.h"

#include <algorithm>
#include <vector>

namespace ptq {
namespace {

int64_t Product(const std::vector<int64_t>& v) {
  int64_t p = 1;
  for (int64_t x : v) p *= x;
  return p;
}

// The indices i in [0, count) for which 0 <= i * stride + offset < size, as [begin, end).
void ValidRange(int64_t count, int64_t stride, int64_t offset, int64_t size, int64_t& begin, int64_t& end) {
  begin = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  end = size - offset <= 0 ? 0 : (size - offset + stride - 1) / stride;
  end = std::min(end, count);
  begin = std::min(begin, end);
}

// Walks an unfolding run by run. `walked` is the grid iterated (conv: the output; transposed: the
// input), `other` the grid addressed, with other = walked * stride - pad_begin + k * dilation per axis.
// For each channel c, kernel position k (row-major index kidx) and position of the walked grid
// except its last axis, calls fn(row, walked_offset, other_offset, last_offset): row = c * K + kidx;
// walked_offset = the run's first element in the walked grid; other_offset = the start of the
// addressed row (c, q_0 .. q_{n-2}, 0) in [channels, other...], or -1 when some q falls outside;
// last_offset = k_last * dilation - pad_begin, so that walked index i of the last axis addresses
// i * stride + last_offset.
template <class Fn>
void ForEachWindowRow(int64_t channels, const SlidingWindow& w, const std::vector<int64_t>& walked,
                      const std::vector<int64_t>& other, const Fn& fn) {
  const size_t n = w.rank();
  const int64_t kernel_size = Product(w.kernel);
  const int64_t walked_last = walked[n - 1];
  const int64_t other_size = Product(other);
  std::vector<int64_t> k(n), p(n);
  for (int64_t c = 0; c < channels; ++c) {
    std::fill(k.begin(), k.end(), 0);
    for (int64_t kidx = 0; kidx < kernel_size; ++kidx) {
      const int64_t last_offset = k[n - 1] * w.dilations[n - 1] - w.pads_begin[n - 1];
      const int64_t runs = Product(walked) / walked_last;
      std::fill(p.begin(), p.end(), 0);
      for (int64_t r = 0; r < runs; ++r) {
        // Offset of the addressed row, or -1 when any outer coordinate falls outside.
        int64_t other_offset = 0;
        for (size_t d = 0; d + 1 < n; ++d) {
          const int64_t q = p[d] * w.strides[d] - w.pads_begin[d] + k[d] * w.dilations[d];
          if (q < 0 || q >= other[d]) {
            other_offset = -1;
            break;
          }
          other_offset = other_offset * other[d] + q;
        }
        if (other_offset >= 0) other_offset = c * other_size + other_offset * other[n - 1];
        fn(c * kernel_size + kidx, r * walked_last, other_offset, last_offset);
        for (size_t d = n - 1; d-- > 0;) {
          if (++p[d] < walked[d]) break;
          p[d] = 0;
        }
      }
      for (size_t d = n; d-- > 0;) {
        if (++k[d] < w.kernel[d]) break;
        k[d] = 0;
      }
    }
  }
}

// The 2-D layout of a 1-D or 2-D window (1-D as height 1).
struct Window2D {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw;
};

Window2D As2D(const SlidingWindow& w) {
  const bool one_d = w.rank() == 1;
  return {one_d ? 1 : w.input[0],     w.input.back(),     one_d ? 1 : w.output[0],     w.output.back(),
          one_d ? 1 : w.kernel[0],    w.kernel.back(),    one_d ? 1 : w.strides[0],    w.strides.back(),
          one_d ? 1 : w.dilations[0], w.dilations.back(), one_d ? 0 : w.pads_begin[0], w.pads_begin.back()};
}

// Im2Col for 1 or 2 spatial dims with plain loops: per row (c, kh, kw) and output row oh, the
// outputs [begin[kw], end[kw]) read the input and the rest are 0.
template <class T>
void Im2Col2D(const T* x, int64_t channels, const Window2D& g, T* col) {
  std::vector<int64_t> begin(static_cast<size_t>(g.KW)), end(static_cast<size_t>(g.KW));
  for (int64_t kw = 0; kw < g.KW; ++kw) ValidRange(g.OW, g.sw, kw * g.dw - g.pw, g.W, begin[kw], end[kw]);
  T* dst = col;
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t kh = 0; kh < g.KH; ++kh) {
      for (int64_t kw = 0; kw < g.KW; ++kw) {
        const int64_t off = kw * g.dw - g.pw, b = begin[kw], e = end[kw];
        for (int64_t oh = 0; oh < g.OH; ++oh, dst += g.OW) {
          const int64_t ih = oh * g.sh - g.ph + kh * g.dh;
          if (ih < 0 || ih >= g.H) {
            for (int64_t ow = 0; ow < g.OW; ++ow) dst[ow] = T(0);
            continue;
          }
          const T* row = x + (c * g.H + ih) * g.W;  // row[ow * sw + off] for ow in [b, e)
          for (int64_t ow = 0; ow < b; ++ow) dst[ow] = T(0);
          if (g.sw == 1) {
            for (int64_t ow = b; ow < e; ++ow) dst[ow] = row[ow + off];
          } else {
            for (int64_t ow = b; ow < e; ++ow) dst[ow] = row[ow * g.sw + off];
          }
          for (int64_t ow = e; ow < g.OW; ++ow) dst[ow] = T(0);
        }
      }
    }
  }
}

}  // namespace

template <class T>
void Im2Col(const T* x, int64_t channels, const SlidingWindow& w, T* col) {
  if (w.rank() <= 2) return Im2Col2D(x, channels, As2D(w), col);
  const size_t n = w.rank();
  const int64_t out_size = Product(w.output);
  const int64_t out_last = w.output[n - 1];
  const int64_t in_last = w.input[n - 1];
  const int64_t stride = w.strides[n - 1];
  ForEachWindowRow(channels, w, w.output, w.input,
                   [&](int64_t row, int64_t out_offset, int64_t in_offset, int64_t off) {
                     T* dst = col + row * out_size + out_offset;
                     if (in_offset < 0) {
                       std::fill(dst, dst + out_last, T(0));
                       return;
                     }
                     int64_t begin, end;
                     ValidRange(out_last, stride, off, in_last, begin, end);
                     const T* src = x + in_offset;
                     std::fill(dst, dst + begin, T(0));
                     if (stride == 1) {
                       std::copy(src + begin + off, src + end + off, dst + begin);
                     } else {
                       for (int64_t o = begin; o < end; ++o) dst[o] = src[o * stride + off];
                     }
                     std::fill(dst + end, dst + out_last, T(0));
                   });
}

template <class T>
void Col2ImAdd(const T* col, int64_t channels, const SlidingWindow& w, T* y) {
  const size_t n = w.rank();
  const int64_t in_size = Product(w.input);
  const int64_t in_last = w.input[n - 1];
  const int64_t out_last = w.output[n - 1];
  const int64_t stride = w.strides[n - 1];
  ForEachWindowRow(channels, w, w.input, w.output,
                   [&](int64_t row, int64_t in_offset, int64_t out_offset, int64_t off) {
                     if (out_offset < 0) return;
                     int64_t begin, end;
                     ValidRange(in_last, stride, off, out_last, begin, end);
                     const T* src = col + row * in_size + in_offset;
                     T* dst = y + out_offset;
                     for (int64_t i = begin; i < end; ++i) dst[i * stride + off] += src[i];
                   });
}

template void Im2Col<float>(const float*, int64_t, const SlidingWindow&, float*);
template void Im2Col<double>(const double*, int64_t, const SlidingWindow&, double*);
template void Col2ImAdd<float>(const float*, int64_t, const SlidingWindow&, float*);
template void Col2ImAdd<double>(const double*, int64_t, const SlidingWindow&, double*);

}  // namespace ptq
