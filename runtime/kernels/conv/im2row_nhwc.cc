// Im2RowNhwc and PackConvWeightsNhwc: the data movement around the GEMM of a channels-last convolution.
#include "runtime/kernels/conv/im2row_nhwc.h"

#include <algorithm>
#include <type_traits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ptq {

// dst[i] = src[i] for i < n: runs of a group's channels are short (16 floats in RegNet), too short for a
// memmove call to pay.
template <class T>
inline void CopyShort(const T* src, int64_t n, T* dst) {
#if defined(__SSE2__)
  if constexpr (std::is_same<T, float>::value) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(dst + i, _mm_loadu_ps(src + i));
    for (; i < n; ++i) dst[i] = src[i];
    return;
  }
#endif
  std::copy(src, src + n, dst);
}

template <class T>
inline void ZeroShort(int64_t n, T* dst) {
#if defined(__SSE2__)
  if constexpr (std::is_same<T, float>::value) {
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(dst + i, _mm_setzero_ps());
    for (; i < n; ++i) dst[i] = 0.0f;
    return;
  }
#endif
  std::fill(dst, dst + n, T(0));
}

template <class T>
void Im2RowNhwc(const T* image, int64_t C, int64_t group, const SlidingWindow& w, int64_t line_begin,
                int64_t line_end, T* rows) {
  const int64_t H = w.input[0], W = w.input[1], OW = w.output[1];
  const int64_t KH = w.kernel[0], KW = w.kernel[1];
  const int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
  const int64_t ph = w.pads_begin[0], pw = w.pads_begin[1];
  const int64_t cg = C / group, K = KH * KW * cg;
  // One group reading undilated columns: the taps kw of one kernel row are one run of KW * C values of the
  // image row, copied at once (taps outside the image zero).
  const bool runs = group == 1 && dw == 1;
  for (int64_t oh = line_begin; oh < line_end; ++oh) {
    for (int64_t ow = 0; ow < OW; ++ow, rows += group * K) {
      const int64_t iw0 = ow * sw - pw;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * sh - ph + kh * dh;
        const bool row_inside = ih >= 0 && ih < H;
        if (runs) {
          T* dst = rows + kh * KW * C;
          const int64_t k0 = row_inside ? std::clamp<int64_t>(-iw0, 0, KW) : KW;
          const int64_t k1 = row_inside ? std::clamp<int64_t>(W - iw0, k0, KW) : KW;
          std::fill(dst, dst + k0 * C, T(0));
          if (k1 > k0) std::copy(image + (ih * W + iw0 + k0) * C, image + (ih * W + iw0 + k1) * C, dst + k0 * C);
          std::fill(dst + k1 * C, dst + KW * C, T(0));
          continue;
        }
        for (int64_t kw = 0; kw < KW; ++kw) {
          const int64_t iw = iw0 + kw * dw;
          const bool inside = row_inside && iw >= 0 && iw < W;
          const T* src = inside ? image + (ih * W + iw) * C : nullptr;
          T* dst = rows + (kh * KW + kw) * cg;
          for (int64_t g = 0; g < group; ++g, dst += K) {
            if (inside) {
              CopyShort(src + g * cg, cg, dst);
            } else {
              ZeroShort(cg, dst);
            }
          }
        }
      }
    }
  }
}

void Im2RowNhwcSlice(const float* image, int64_t C, const SlidingWindow& w, int64_t p_begin, int64_t p_end,
                     int64_t k_begin, int64_t k_end, float* rows) {
  const int64_t H = w.input[0], W = w.input[1], OW = w.output[1], KW = w.kernel[1];
  const int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
  const int64_t ph = w.pads_begin[0], pw = w.pads_begin[1];
  for (int64_t o = p_begin; o < p_end; ++o) {
    const int64_t oh = o / OW, ow = o % OW;
    for (int64_t k = k_begin; k < k_end;) {  // one tap's run of channels at a time
      const int64_t t = k / C, c = k % C, len = std::min(C - c, k_end - k);
      const int64_t ih = oh * sh - ph + t / KW * dh, iw = ow * sw - pw + t % KW * dw;
      if (ih >= 0 && ih < H && iw >= 0 && iw < W) {
        CopyShort(image + (ih * W + iw) * C + c, len, rows);
      } else {
        ZeroShort(len, rows);
      }
      rows += len;
      k += len;
    }
  }
}

template <class T>
void PackConvWeightsNhwc(const T* w, int64_t M, int64_t cg, int64_t taps, int64_t group, T* wt) {
  const int64_t mg = M / group;
  for (int64_t g = 0; g < group; ++g) {
    T* dst = wt + g * taps * cg * mg;
    for (int64_t m = 0; m < mg; ++m) {
      const T* src = w + (g * mg + m) * cg * taps;
      for (int64_t c = 0; c < cg; ++c) {
        for (int64_t t = 0; t < taps; ++t) dst[(t * cg + c) * mg + m] = src[c * taps + t];
      }
    }
  }
}

template void Im2RowNhwc<float>(const float*, int64_t, int64_t, const SlidingWindow&, int64_t, int64_t, float*);
template void Im2RowNhwc<double>(const double*, int64_t, int64_t, const SlidingWindow&, int64_t, int64_t, double*);
template void PackConvWeightsNhwc<float>(const float*, int64_t, int64_t, int64_t, int64_t, float*);
template void PackConvWeightsNhwc<double>(const double*, int64_t, int64_t, int64_t, int64_t, double*);

}  // namespace ptq
