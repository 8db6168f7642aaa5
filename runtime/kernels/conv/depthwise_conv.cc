// Depthwise convolution: each input plane copied once into a zero-padded plane split into stride phases,
// so that every tap of an output row is a contiguous run; DepthwiseRow then sums the taps row by row.
#include "runtime/kernels/conv/depthwise_conv.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/kernels/conv/depthwise_rows.h"
#include "runtime/kernels/vector/requantize_row.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// Channels are shared out between threads from this many multiply-adds in all: below it, waking a
// second thread costs more than it saves.
constexpr int64_t kParallelMacs = int64_t{1} << 20;

// The padded plane: rows of row_stride values, each row split into `sw` phases of phase_w values,
// phase p holding the padded columns p, p + sw, p + 2 sw, ... With it, tap (kh, kw) of output
// (oh, ow) is at oh * sh * row_stride + tap_offset[kh * KW + kw] + ow.
struct PlaneLayout {
  int64_t H = 1, W = 1, OH = 1, OW = 1, taps = 1;
  int64_t sh = 1, sw = 1, ph = 0, pw = 0;
  int64_t rows = 0, phase_w = 0, row_stride = 0;
  std::vector<int64_t> tap_offset;

  int64_t size() const { return rows * row_stride; }
};

PlaneLayout MakeLayout(const ConvGeometry& g) {
  const SlidingWindow& win = g.window;
  const bool one_d = win.rank() == 1;
  PlaneLayout l;
  l.H = one_d ? 1 : win.input[0];
  l.W = win.input.back();
  l.OH = one_d ? 1 : win.output[0];
  l.OW = win.output.back();
  const int64_t KH = one_d ? 1 : win.kernel[0], KW = win.kernel.back();
  const int64_t dh = one_d ? 1 : win.dilations[0], dw = win.dilations.back();
  l.sh = one_d ? 1 : win.strides[0];
  l.sw = win.strides.back();
  l.ph = one_d ? 0 : win.pads_begin[0];
  l.pw = win.pads_begin.back();
  l.taps = KH * KW;
  // Rows and columns reach every tap of every output: (O - 1) * s + (K - 1) * d < I + pads.
  l.rows = std::max(l.H + l.ph + (one_d ? 0 : win.pads_end[0]), (l.OH - 1) * l.sh + (KH - 1) * dh + 1);
  const int64_t cols = std::max(l.W + l.pw + win.pads_end.back(), (l.OW - 1) * l.sw + (KW - 1) * dw + 1);
  l.phase_w = (cols + l.sw - 1) / l.sw;
  l.row_stride = l.sw * l.phase_w;
  for (int64_t kh = 0; kh < KH; ++kh) {
    for (int64_t kw = 0; kw < KW; ++kw) {
      const int64_t c = kw * dw;
      l.tap_offset.push_back(kh * dh * l.row_stride + (c % l.sw) * l.phase_w + c / l.sw);
    }
  }
  return l;
}

// plane = the padded, phase-split copy of src [H, W], each value through `convert`, 0 elsewhere. Only the
// padding is zeroed; rows are converted into one padded row first, then dealt out to the phases (loops
// compilers vectorise, and SplitPhases2 for stride 2).
template <class T, class Src, class Convert>
void FillPlane(const Src* src, const PlaneLayout& l, Convert convert, std::vector<T>& plane, std::vector<T>& row) {
  plane.resize(static_cast<size_t>(l.size()));
  row.assign(static_cast<size_t>(l.row_stride), T(0));
  const int64_t top = l.ph * l.row_stride, bottom = (l.ph + l.H) * l.row_stride;
  std::fill(plane.begin(), plane.begin() + top, T(0));
  std::fill(plane.begin() + bottom, plane.end(), T(0));
  for (int64_t ih = 0; ih < l.H; ++ih) {
    T* dst = plane.data() + (ih + l.ph) * l.row_stride;
    const Src* in = src + ih * l.W;
    T* padded = l.sw == 1 ? dst : row.data();  // padded[c] = padded column c
    if (l.sw == 1) {
      std::fill(dst, dst + l.pw, T(0));
      std::fill(dst + l.pw + l.W, dst + l.row_stride, T(0));
    }
    for (int64_t iw = 0; iw < l.W; ++iw) padded[l.pw + iw] = convert(in[iw]);
    if (l.sw == 1) continue;
    if (l.sw == 2) {
      SplitPhases2(padded, l.phase_w, dst, dst + l.phase_w);
      continue;
    }
    for (int64_t p = 0; p < l.sw; ++p) {
      T* phase = dst + p * l.phase_w;
      const T* from = padded + p;
      for (int64_t j = 0; j < l.phase_w; ++j) phase[j] = from[j * l.sw];
    }
  }
}

// y [OH, OW] += the taps wk of the padded plane, row by row.
template <class T>
void PlaneRows(const T* plane, const PlaneLayout& l, const T* wk, std::vector<const T*>& taps, T* y) {
  taps.resize(static_cast<size_t>(l.taps));
  for (int64_t oh = 0; oh < l.OH; ++oh) {
    const T* base = plane + oh * l.sh * l.row_stride;
    for (int64_t t = 0; t < l.taps; ++t) taps[static_cast<size_t>(t)] = base + l.tap_offset[static_cast<size_t>(t)];
    DepthwiseRow(taps.data(), wk, l.taps, l.OW, y + oh * l.OW);
  }
}

// f(unit) for unit in [0, units), shared between threads when the work is large enough.
template <class F>
void ForEachUnit(int64_t units, int64_t macs_per_unit, F f) {
  const int threads = InParallelRegion() ? 1 : omp_get_max_threads();
  if (threads > 1 && units > 1 && units * macs_per_unit >= kParallelMacs) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t u = 0; u < units; ++u) f(u);
    return;
  }
  for (int64_t u = 0; u < units; ++u) f(u);
}

}  // namespace

bool IsDepthwise(const ConvGeometry& g) {
  return g.group == g.in_channels && g.group > 0 && (g.window.rank() == 1 || g.window.rank() == 2);
}

template <class T>
void DepthwiseConv(const T* x, const T* w, const ConvGeometry& g, T* y, const GemmEpilogue<T>& activation) {
  const PlaneLayout l = MakeLayout(g);
  const int64_t C = g.in_channels, M = g.out_channels, multiplier = M / C;
  const int64_t out_plane = l.OH * l.OW;
  // One unit is one input plane of one image and its `multiplier` output planes.
  ForEachUnit(g.batch * C, multiplier * out_plane * l.taps, [&](int64_t u) {
    thread_local std::vector<T> plane, row;
    thread_local std::vector<const T*> taps;
    const int64_t n = u / C, c = u % C;
    FillPlane(x + u * l.H * l.W, l, [](T v) { return v; }, plane, row);
    for (int64_t j = 0; j < multiplier; ++j) {
      const int64_t m = c * multiplier + j;
      T* out = y + (n * M + m) * out_plane;
      PlaneRows(plane.data(), l, w + m * l.taps, taps, out);
      if (!activation.clamp) continue;
      for (int64_t i = 0; i < out_plane; ++i) {
        const T v = out[i] < activation.lo ? activation.lo : out[i];
        out[i] = activation.hi < v ? activation.hi : v;
      }
    }
  });
}

template void DepthwiseConv<float>(const float*, const float*, const ConvGeometry&, float*, const GemmEpilogue<float>&);
template void DepthwiseConv<double>(const double*, const double*, const ConvGeometry&, double*,
                                    const GemmEpilogue<double>&);

void Int8DepthwiseConv(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                       const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                       const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias) {
  const PlaneLayout l = MakeLayout(g);
  const int64_t C = g.in_channels, M = g.out_channels, per_input = M / C;
  const int64_t out_plane = l.OH * l.OW;
  const int64_t elem = out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1;
  // The weights less their zero points, exact in float.
  std::vector<float> wf(static_cast<size_t>(M * l.taps));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t t = 0; t < l.taps; ++t) {
      const uint8_t b = w[m * l.taps + t];
      const int32_t v = w_signed ? static_cast<int8_t>(b) : b;
      wf[static_cast<size_t>(m * l.taps + t)] = static_cast<float>(v - w_zero_point[m]);
    }
  }
  auto* y_bytes = static_cast<uint8_t*>(y);
  ForEachUnit(g.batch * C, per_input * out_plane * l.taps, [&](int64_t u) {
    thread_local std::vector<float> plane, row, acc;
    thread_local std::vector<const float*> taps;
    const int64_t n = u / C, c = u % C;
    const uint8_t* src = x + u * l.H * l.W;
    // x - x_zero_point, so that the padding (0) contributes nothing, as x_zero_point would.
    if (x_signed) {
      FillPlane(src, l, [x_zero_point](uint8_t b) { return static_cast<float>(static_cast<int8_t>(b) - x_zero_point); },
                plane, row);
    } else {
      FillPlane(src, l, [x_zero_point](uint8_t b) { return static_cast<float>(b - x_zero_point); }, plane, row);
    }
    for (int64_t j = 0; j < per_input; ++j) {
      const int64_t m = c * per_input + j;
      acc.assign(static_cast<size_t>(out_plane), 0.0f);
      PlaneRows(plane.data(), l, wf.data() + m * l.taps, taps, acc.data());
      uint8_t* dst = y_bytes + (n * M + m) * out_plane * elem;
      if (out == Int8Output::kFloat) {  // the exact sums, + bias, times the multiplier, + the float bias
        const float fb = float_bias != nullptr ? float_bias[m] : 0.0f;
        float* f = reinterpret_cast<float*>(dst);
        const int32_t b = bias != nullptr ? bias[m] : 0;
        for (int64_t i = 0; i < out_plane; ++i) {
          const int32_t a = static_cast<int32_t>(static_cast<uint32_t>(static_cast<int32_t>(acc[i])) + static_cast<uint32_t>(b));
          f[i] = static_cast<float>(a) * multiplier[m] + fb;
        }
        continue;
      }
      RequantizeRow(acc.data(), out_plane, bias != nullptr ? bias[m] : 0, multiplier != nullptr ? multiplier[m] : 0.0f,
                    y_zero_point, out, dst);
    }
  });
}

}  // namespace ptq
