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
  for (int64_t oh = line_begin; oh < line_end; ++oh) {
    for (int64_t ow = 0; ow < OW; ++ow) {
      for (int64_t kh = 0; kh < KH; ++kh) {
        const int64_t ih = oh * sh - ph + kh * dh;
        for (int64_t kw = 0; kw < KW; ++kw, rows += cg) {
          const int64_t iw = ow * sw - pw + kw * dw;
          if (ih < 0 || ih >= H || iw < 0 || iw >= W) {
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
