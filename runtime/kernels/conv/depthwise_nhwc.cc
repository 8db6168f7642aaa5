// Depthwise convolution with channels last: each image padded once (channels repeated when the channel
// multiplier is above 1), then each output position's taps summed by DepthwiseTaps*, output rows shared
// between threads.
#include "runtime/kernels/conv/depthwise_nhwc.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/kernels/vector/requantize_row.h"

namespace ptq {
namespace {

// Output rows are shared between threads from this many multiply-adds in all.
constexpr int64_t kParallelMacs = int64_t{1} << 20;

// The padded image: Hp x Wp positions of M values, so that tap (kh, kw) of output (oh, ow) is position
// (oh * sh + kh * dh, ow * sw + kw * dw).
struct NhwcLayout {
  int64_t H, W, OH, OW, Hp, Wp, ph, pw, sh, sw, taps, C, M;
  std::vector<int64_t> tap_offset;  // in positions, from the window's first tap
};

NhwcLayout MakeLayout(const ConvGeometry& g) {
  const SlidingWindow& win = g.window;
  NhwcLayout l;
  l.H = win.input[0];
  l.W = win.input[1];
  l.OH = win.output[0];
  l.OW = win.output[1];
  l.sh = win.strides[0];
  l.sw = win.strides[1];
  l.ph = win.pads_begin[0];
  l.pw = win.pads_begin[1];
  const int64_t KH = win.kernel[0], KW = win.kernel[1], dh = win.dilations[0], dw = win.dilations[1];
  l.Hp = std::max(l.H + l.ph + win.pads_end[0], (l.OH - 1) * l.sh + (KH - 1) * dh + 1);
  l.Wp = std::max(l.W + l.pw + win.pads_end[1], (l.OW - 1) * l.sw + (KW - 1) * dw + 1);
  l.taps = KH * KW;
  l.C = g.in_channels;
  l.M = g.out_channels;
  for (int64_t kh = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw) l.tap_offset.push_back(kh * dh * l.Wp + kw * dw);
  }
  return l;
}

// padded = image [H, W, C] at offset (ph, pw) of a Hp x Wp grid of `fill`, each position's channel c
// repeated M / C times (output channel m reads input channel m / (M / C)).
template <class T>
void PadImage(const T* image, const NhwcLayout& l, T fill, std::vector<T>& padded) {
  padded.assign(static_cast<size_t>(l.Hp * l.Wp * l.M), fill);
  const int64_t repeat = l.M / l.C;
  for (int64_t h = 0; h < l.H; ++h) {
    for (int64_t w = 0; w < l.W; ++w) {
      const T* src = image + (h * l.W + w) * l.C;
      T* dst = padded.data() + ((h + l.ph) * l.Wp + w + l.pw) * l.M;
      if (repeat == 1) {
        std::copy(src, src + l.C, dst);
      } else {
        for (int64_t m = 0; m < l.M; ++m) dst[m] = src[m / repeat];
      }
    }
  }
}

// f(oh, taps) for every output row of one image, with taps[t] = the first output position's tap t.
template <class T, class F>
void ForEachRow(const NhwcLayout& l, const T* padded, F f) {
  const int threads = omp_in_parallel() || l.OH * l.OW * l.taps * l.M < kParallelMacs ? 1 : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(threads)
  for (int64_t oh = 0; oh < l.OH; ++oh) f(oh, padded + oh * l.sh * l.Wp * l.M);
}

}  // namespace

template <class T>
void DepthwiseConvNhwc(const T* x, const T* w, const T* bias, const ConvGeometry& g, T* y,
                       const GemmEpilogue<T>& activation) {
  const NhwcLayout l = MakeLayout(g);
  std::vector<T> wt(static_cast<size_t>(l.taps * l.M));  // [taps][M]
  for (int64_t m = 0; m < l.M; ++m) {
    for (int64_t t = 0; t < l.taps; ++t) wt[static_cast<size_t>(t * l.M + m)] = w[m * l.taps + t];
  }
  std::vector<T> padded;
  for (int64_t n = 0; n < g.batch; ++n) {
    PadImage(x + n * l.H * l.W * l.C, l, T(0), padded);
    T* yn = y + n * l.OH * l.OW * l.M;
    ForEachRow(l, padded.data(), [&](int64_t oh, const T* row) {
      std::vector<const T*> taps(static_cast<size_t>(l.taps));
      for (int64_t ow = 0; ow < l.OW; ++ow) {
        T* out = yn + (oh * l.OW + ow) * l.M;
        for (int64_t t = 0; t < l.taps; ++t) taps[static_cast<size_t>(t)] = row + (ow * l.sw + l.tap_offset[t]) * l.M;
        for (int64_t m = 0; m < l.M; ++m) out[m] = bias != nullptr ? bias[m] : T(0);
        if constexpr (std::is_same<T, float>::value) {
          DepthwiseTapsF32(taps.data(), wt.data(), l.taps, l.M, out);
        } else {
          for (int64_t m = 0; m < l.M; ++m) {
            for (int64_t t = 0; t < l.taps; ++t) out[m] += wt[t * l.M + m] * taps[t][m];
          }
        }
        if (!activation.clamp) continue;
        for (int64_t m = 0; m < l.M; ++m) {
          const T v = out[m] < activation.lo ? activation.lo : out[m];
          out[m] = activation.hi < v ? activation.hi : v;
        }
      }
    });
  }
}

template void DepthwiseConvNhwc<float>(const float*, const float*, const float*, const ConvGeometry&, float*,
                                       const GemmEpilogue<float>&);
template void DepthwiseConvNhwc<double>(const double*, const double*, const double*, const ConvGeometry&, double*,
                                        const GemmEpilogue<double>&);

void Int8DepthwiseConvNhwc(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                           const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                           const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias) {
  const NhwcLayout l = MakeLayout(g);
  // wf[t][m] = w - w_zero_point (exact in float); the bias less x_zero_point * sum_t wf[t][m], since the
  // taps sum x itself (padding included, which holds x_zero_point).
  std::vector<float> wf(static_cast<size_t>(l.taps * l.M));
  std::vector<int32_t> bias_less(static_cast<size_t>(l.M));
  for (int64_t m = 0; m < l.M; ++m) {
    int32_t sum = 0;
    for (int64_t t = 0; t < l.taps; ++t) {
      const uint8_t b = w[m * l.taps + t];
      const int32_t v = (w_signed ? static_cast<int8_t>(b) : b) - w_zero_point[m];
      wf[static_cast<size_t>(t * l.M + m)] = static_cast<float>(v);
      sum += v;
    }
    const uint32_t correction = static_cast<uint32_t>(x_zero_point) * static_cast<uint32_t>(sum);
    bias_less[static_cast<size_t>(m)] =
        static_cast<int32_t>(static_cast<uint32_t>(bias != nullptr ? bias[m] : 0) - correction);
  }
  const int64_t elem = out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1;
  std::vector<uint8_t> padded;
  for (int64_t n = 0; n < g.batch; ++n) {
    PadImage(x + n * l.H * l.W * l.C, l, static_cast<uint8_t>(x_zero_point), padded);
    auto* yn = static_cast<uint8_t*>(y) + n * l.OH * l.OW * l.M * elem;
    ForEachRow(l, padded.data(), [&](int64_t oh, const uint8_t* row) {
      std::vector<const uint8_t*> taps(static_cast<size_t>(l.taps));
      std::vector<float> acc(static_cast<size_t>(l.M));
      for (int64_t ow = 0; ow < l.OW; ++ow) {
        for (int64_t t = 0; t < l.taps; ++t) taps[static_cast<size_t>(t)] = row + (ow * l.sw + l.tap_offset[t]) * l.M;
        DepthwiseTapsU8(taps.data(), x_signed, wf.data(), l.taps, l.M, acc.data());
        RequantizeChannels(acc.data(), l.M, bias_less.data(), multiplier, y_zero_point, out,
                           yn + (oh * l.OW + ow) * l.M * elem, float_bias);
      }
    });
  }
}

}  // namespace ptq
