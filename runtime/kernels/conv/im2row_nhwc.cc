// Im2RowNhwc and PackConvWeightsNhwc: the data movement around the GEMM of a channels-last convolution.
#include "runtime/kernels/conv/im2row_nhwc.h"

#include <algorithm>

namespace ptq {

template <class T>
void Im2RowNhwc(const T* image, int64_t C, int64_t c0, int64_t cg, const SlidingWindow& w, int64_t line_begin,
                int64_t line_end, T* rows) {
  const int64_t H = w.input[0], W = w.input[1], OW = w.output[1];
  const int64_t KH = w.kernel[0], KW = w.kernel[1];
  const int64_t sh = w.strides[0], sw = w.strides[1], dh = w.dilations[0], dw = w.dilations[1];
  const int64_t ph = w.pads_begin[0], pw = w.pads_begin[1];
  // One group reading undilated columns: the taps kw of one kernel row are one run of KW * C values of the
  // image row, copied at once (taps outside the image zero).
  const bool runs = cg == C && dw == 1;
  for (int64_t oh = line_begin; oh < line_end; ++oh) {
    for (int64_t ow = 0; ow < OW; ++ow) {
      const int64_t iw0 = ow * sw - pw;
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * sh - ph + kh * dh;
        if (ih < 0 || ih >= H) {
          std::fill(rows, rows + KW * cg, T(0));
          rows += KW * cg;
        } else if (runs) {
          const int64_t k0 = std::clamp<int64_t>(-iw0, 0, KW), k1 = std::clamp<int64_t>(W - iw0, k0, KW);
          std::fill(rows, rows + k0 * C, T(0));
          if (k1 > k0) std::copy(image + (ih * W + iw0 + k0) * C, image + (ih * W + iw0 + k1) * C, rows + k0 * C);
          std::fill(rows + k1 * C, rows + KW * C, T(0));
          rows += KW * C;
        } else {
          for (int64_t kw = 0; kw < KW; ++kw, rows += cg) {
            const int64_t iw = iw0 + kw * dw;
            if (iw < 0 || iw >= W) {
              std::fill(rows, rows + cg, T(0));
            } else {
              const T* src = image + (ih * W + iw) * C + c0;
              std::copy(src, src + cg, rows);
            }
          }
        }
      }
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

template void Im2RowNhwc<float>(const float*, int64_t, int64_t, int64_t, const SlidingWindow&, int64_t, int64_t,
                                float*);
template void Im2RowNhwc<double>(const double*, int64_t, int64_t, int64_t, const SlidingWindow&, int64_t, int64_t,
                                 double*);
template void PackConvWeightsNhwc<float>(const float*, int64_t, int64_t, int64_t, int64_t, float*);
template void PackConvWeightsNhwc<double>(const double*, int64_t, int64_t, int64_t, int64_t, double*);

}  // namespace ptq
