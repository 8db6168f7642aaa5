// Unfolding of sliding windows into GEMM operands and the scatter-add back.
#include "runtime/ops/im2col.h"

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

// Walks the rows of a window unfolding: for each channel c, each kernel position k and each
// position p of the "walked" grid except its last axis (odometer), calls
// row(c, kidx, walked_base_offset, other_base_offset_or_-1, k_last_offset).
// `walked` are the sizes iterated (conv: output; transposed: input), `other` the sizes addressed.
// Positions map as other = walked * stride - pad_begin + k * dilation.
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

}  // namespace

template <class T>
void Im2Col(const T* x, int64_t channels, const SlidingWindow& w, T* col) {
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
