// Depthwise convolution with channels last: each output position's taps (runs of channels in the image,
// or a run of padding values outside it) summed by DepthwiseTaps*, output rows shared between threads.
#include "runtime/kernels/conv/depthwise_nhwc.h"

#include <omp.h>

#include <algorithm>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/depthwise_nhwc_interior.h"
#include "runtime/kernels/grow_only.h"
#include "runtime/kernels/shared_zeros.h"
#include "runtime/kernels/vector/center_bytes.h"
#include "runtime/kernels/vector/requantize_row.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// Output rows are shared between threads from this many multiply-adds in all.
constexpr int64_t kParallelMacs = int64_t{1} << 17;
// Tap pointers and offsets of one position live on the stack up to this many taps (7 x 7).
constexpr int64_t kMaxDepthwiseRowTaps = 49;

// The window: tap (kh, kw) of output (oh, ow) reads input position (oh * sh - ph + kh * dh,
// ow * sw - pw + kw * dw), a run of M values (channel m reads input channel m / (M / C)).
struct NhwcLayout {
  int64_t H, W, OH, OW, KH, KW, sh, sw, dh, dw, ph, pw, C, M;
  int64_t taps() const { return KH * KW; }
};

NhwcLayout MakeLayout(const ConvGeometry& g) {
  const SlidingWindow& win = g.window;
  return {win.input[0],   win.input[1],   win.output[0],     win.output[1],    win.kernel[0],
          win.kernel[1],  win.strides[0], win.strides[1],    win.dilations[0], win.dilations[1],
          win.pads_begin[0], win.pads_begin[1], g.in_channels, g.out_channels};
}

// The image with M channels per position: `image` itself when M == C, else each channel repeated M / C
// times into `expanded`.
template <class T>
const T* ChannelsPerOutput(const T* image, const NhwcLayout& l, std::vector<T>& expanded) {
  if (l.M == l.C) return image;
  const int64_t repeat = l.M / l.C;
  expanded.resize(static_cast<size_t>(l.H * l.W * l.M));
  for (int64_t p = 0; p < l.H * l.W; ++p) {
    for (int64_t m = 0; m < l.M; ++m) expanded[static_cast<size_t>(p * l.M + m)] = image[p * l.C + m / repeat];
  }
  return expanded.data();
}

// f(begin, end) for ranges of one image's output positions (oh * OW + ow) covering them all: one range, or
// kUnitsPerThread ranges per thread of nearly equal size when the work is large enough. (Whole rows a thread left
// the threads unequal where the rows are few: PP-OCR rec's 5 x 5s of 3 output rows took 2 rows and 1, 1.45x on
// two threads.) Each range converts the input rows it reads itself: with four blocks of rows a thread,
// MobileNetV2's 7 x 7 and 14 x 14 depthwise layers at batch 1 converted 3 and 2 times the rows of one thread.
// (Converting each row once and sharing them between the threads was slower: each thread read half of its rows
// from the other's cache, 14 x 14 x 576 in 0.11 ms instead of 0.056.)
template <class F>
void ForEachPositionRange(const NhwcLayout& l, F f) {
  const int threads = ThreadsForWork(l.OH * l.OW * l.taps() * l.M, kParallelMacs);
  const int64_t positions = l.OH * l.OW;
  const int64_t units = threads == 1 ? 1 : std::min<int64_t>(positions, int64_t{threads} * kUnitsPerThread);
#pragma omp parallel for schedule(static) num_threads(threads) if (threads > 1)
  for (int64_t u = 0; u < units; ++u) f(positions * u / units, positions * (u + 1) / units);
}

// f(oh, begin, end) for the columns [begin, end) of each output row oh that the positions [p_begin, p_end) cover,
// in order.
template <class F>
void ForEachRowPart(const NhwcLayout& l, int64_t p_begin, int64_t p_end, F f) {
  for (int64_t oh = p_begin / l.OW; oh * l.OW < p_end; ++oh) {
    f(oh, std::max<int64_t>(0, p_begin - oh * l.OW), std::min(l.OW, p_end - oh * l.OW));
  }
}

// f(n) for every image of the batch: with a multiple of the threads' count of images (and work enough to share),
// a contiguous range of whole images a thread, as the GEMMs around a depthwise layer share their rows
// (EfficientNet-B0 int8 at batch 8 split every image's rows between the threads instead, so each read half of its
// rows from the other's cache); else one image at a time, whose positions f shares (ForEachPositionRange).
template <class F>
void ForEachImage(const NhwcLayout& l, int64_t batch, F f) {
  const int threads = ThreadsForWork(batch * l.OH * l.OW * l.taps() * l.M, kParallelMacs);
  if (threads > 1 && batch % threads == 0) {
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t n = 0; n < batch; ++n) f(n);
    return;
  }
  for (int64_t n = 0; n < batch; ++n) f(n);
}

// The output columns [begin, end) whose taps all lie inside the image along the width.
void InteriorColumns(const NhwcLayout& l, int64_t* begin, int64_t* end) {
  const int64_t last_tap = (l.KW - 1) * l.dw;
  *begin = std::min(l.OW, (l.pw + l.sw - 1) / l.sw);  // ow * sw - pw >= 0
  *end = l.W - 1 - last_tap + l.pw < 0 ? 0 : std::min(l.OW, (l.W - 1 - last_tap + l.pw) / l.sw + 1);
  if (*end < *begin) *end = *begin;
}

}  // namespace

template <class T>
DepthwiseNhwcRows<T>::DepthwiseNhwcRows(const T* w, const T* bias, const ConvGeometry& g,
                                        const GemmEpilogue<T>& activation, const RowFinish<T>* finish_row,
                                        bool taps_major)
    : bias_(bias), activation_(activation), finish_row_(finish_row) {
  const NhwcLayout l = MakeLayout(g);
  W_ = l.W, OW_ = l.OW, KH_ = l.KH, KW_ = l.KW, sh_ = l.sh, sw_ = l.sw, dh_ = l.dh, dw_ = l.dw, ph_ = l.ph, pw_ = l.pw;
  M_ = l.M;
  const int64_t taps = l.taps();
  if (taps_major) {
    w_ = w;
  } else {
    wt_.resize(static_cast<size_t>(taps * M_));
    for (int64_t m = 0; m < M_; ++m) {
      for (int64_t t = 0; t < taps; ++t) wt_[static_cast<size_t>(t * M_ + m)] = w[m * taps + t];
    }
  }
  zeros_ = static_cast<const T*>(SharedZeros(static_cast<size_t>(W_ * M_) * sizeof(T)));
  if constexpr (std::is_same<T, float>::value) interior_ = GetCpuFeatures().avx2_fma;
  InteriorColumns(l, &col_begin_, &col_end_);
}

// The output positions [begin, end) of one output row, one at a time through the tap pointers.
template <class T>
void DepthwiseNhwcRows<T>::Positions(const T* const* in_rows, int64_t begin, int64_t end, T* yrow) const {
  const int64_t taps = KH_ * KW_;
  const T* tap[kMaxDepthwiseRowTaps];
  std::vector<const T*> more;  // windows of more taps than that
  const T** tp = tap;
  if (taps > kMaxDepthwiseRowTaps) {
    more.resize(static_cast<size_t>(taps));
    tp = more.data();
  }
  for (int64_t ow = begin; ow < end; ++ow) {
    T* out = yrow + ow * M_;
    for (int64_t kh = 0, t = 0; kh < KH_; ++kh) {
      for (int64_t kw = 0; kw < KW_; ++kw, ++t) {
        const int64_t iw = ow * sw_ - pw_ + kw * dw_;
        tp[t] = in_rows[kh] != nullptr && iw >= 0 && iw < W_ ? in_rows[kh] + iw * M_ : zeros_;
      }
    }
    for (int64_t m = 0; m < M_; ++m) out[m] = bias_ != nullptr ? bias_[m] : T(0);
    if constexpr (std::is_same<T, float>::value) {
      DepthwiseTapsF32(tp, weights(), taps, M_, out);
    } else {
      for (int64_t m = 0; m < M_; ++m) {
        for (int64_t t = 0; t < taps; ++t) out[m] += weights()[t * M_ + m] * tp[t][m];
      }
    }
    if (!activation_.clamp) continue;
    for (int64_t m = 0; m < M_; ++m) {
      const T v = out[m] < activation_.lo ? activation_.lo : out[m];
      out[m] = activation_.hi < v ? activation_.hi : v;
    }
  }
}

template <class T>
void DepthwiseNhwcRows<T>::Run(const T* const* in_rows, T* yrow, int64_t begin, int64_t end) const {
  if constexpr (std::is_same<T, float>::value) {
    const int64_t interior_begin = std::max(begin, col_begin_), interior_end = std::min(end, col_end_);
    if (interior_ && interior_end > interior_begin && KH_ * KW_ <= kMaxDepthwiseRowTaps) {
      Positions(in_rows, begin, interior_begin, yrow);
      // Where the interior columns' taps read: kernel rows outside the image read a row of padding values.
      const float* tap_x[kMaxDepthwiseRowTaps];
      for (int64_t kh = 0, t = 0; kh < KH_; ++kh) {
        const float* row = in_rows[kh] != nullptr ? in_rows[kh] : zeros_;
        for (int64_t kw = 0; kw < KW_; ++kw, ++t) tap_x[t] = row + (interior_begin * sw_ - pw_ + kw * dw_) * M_;
      }
      DepthwiseInteriorRow r;
      r.tap_x = tap_x;
      r.x_step = sw_ * M_;
      r.taps = KH_ * KW_;
      r.row_taps = KW_;
      r.dilation = dw_;
      r.weights = weights();
      r.bias = bias_;
      r.channels = M_;
      r.y = yrow + interior_begin * M_;
      r.count = interior_end - interior_begin;
      r.clamp = activation_.clamp;
      r.lo = activation_.lo;
      r.hi = activation_.hi;
      DepthwiseInteriorRowF32(r);
      Positions(in_rows, interior_end, end, yrow);
      if (finish_row_ != nullptr) (*finish_row_)(yrow + begin * M_, (end - begin) * M_);
      return;
    }
  }
  Positions(in_rows, begin, end, yrow);
  if (finish_row_ != nullptr) (*finish_row_)(yrow + begin * M_, (end - begin) * M_);
}

template class DepthwiseNhwcRows<float>;
template class DepthwiseNhwcRows<double>;

template <class T>
void DepthwiseConvNhwc(const T* x, const T* w, const T* bias, const ConvGeometry& g, T* y,
                       const GemmEpilogue<T>& activation, const RowFinish<T>* finish_row) {
  const NhwcLayout l = MakeLayout(g);
  const DepthwiseNhwcRows<T> rows(w, bias, g, activation, finish_row);
  ForEachImage(l, g.batch, [&](int64_t n) {
    std::vector<T> expanded;
    const T* image = ChannelsPerOutput(x + n * l.H * l.W * l.C, l, expanded);
    T* yn = y + n * l.OH * l.OW * l.M;
    ForEachPositionRange(l, [&](int64_t p_begin, int64_t p_end) {
      std::vector<const T*> in_rows(static_cast<size_t>(l.KH));
      ForEachRowPart(l, p_begin, p_end, [&](int64_t oh, int64_t begin, int64_t end) {
        for (int64_t kh = 0; kh < l.KH; ++kh) {
          const int64_t ih = rows.InputRow(oh, kh);
          in_rows[static_cast<size_t>(kh)] = ih >= 0 && ih < l.H ? image + ih * l.W * l.M : nullptr;
        }
        rows.Run(in_rows.data(), yn + oh * l.OW * l.M, begin, end);
      });
    });
  });
}

template void DepthwiseConvNhwc<float>(const float*, const float*, const float*, const ConvGeometry&, float*,
                                       const GemmEpilogue<float>&, const RowFinish<float>*);
template void DepthwiseConvNhwc<double>(const double*, const double*, const double*, const ConvGeometry&, double*,
                                        const GemmEpilogue<double>&, const RowFinish<double>*);

std::vector<float> CenteredDepthwiseWeights(const uint8_t* w, bool w_signed, const int32_t* w_zero_point, int64_t M,
                                            int64_t taps) {
  std::vector<float> wf(static_cast<size_t>(taps * M));
  for (int64_t m = 0; m < M; ++m) {
    for (int64_t t = 0; t < taps; ++t) {
      const uint8_t b = w[m * taps + t];
      const int32_t v = (w_signed ? static_cast<int8_t>(b) : b) - w_zero_point[m];
      wf[static_cast<size_t>(t * M + m)] = static_cast<float>(v);
    }
  }
  return wf;
}

void Int8DepthwiseConvNhwc(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                           const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                           const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias,
                           const FloatRowFinish* finish, const float* w_centered) {
  const NhwcLayout l = MakeLayout(g);
  // The float kernel on x - x_zero_point and w - w_zero_point (taps outside the image then read exact zeros):
  // every product and partial sum is an integer below 2^24 in magnitude (taps <= kMaxExactDepthwiseTaps), so
  // the sums are exact whatever their order.
  std::vector<float> wf;
  if (w_centered == nullptr) {
    wf = CenteredDepthwiseWeights(w, w_signed, w_zero_point, l.M, l.taps());
    w_centered = wf.data();
  }
  const DepthwiseNhwcRows<float> rows(w_centered, nullptr, g, GemmEpilogue<float>{}, nullptr, true);
  const int64_t elem = out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1;
  const int64_t span = (l.KH - 1) * l.dh + 1;  // the input rows one output row reads
  const int64_t row_len = l.W * l.M;
  // Columns [begin, end) of output row oh of image n from its input rows (in_rows[kh], or nullptr outside the
  // image) into acc (the thread's OW x M sums), then requantized into y.
  auto output_row = [&](int64_t n, int64_t oh, int64_t begin, int64_t end, const float* const* in_rows, float* acc) {
    auto* yrow = static_cast<uint8_t*>(y) + (n * l.OH + oh) * l.OW * l.M * elem;
    rows.Run(in_rows, acc, begin, end);
    for (int64_t ow = begin; ow < end; ++ow) {
      RequantizeChannels(acc + ow * l.M, l.M, bias, multiplier, y_zero_point, out, yrow + ow * l.M * elem,
                         float_bias);
    }
    if (finish != nullptr && out == Int8Output::kFloat) {
      (*finish)(reinterpret_cast<float*>(yrow) + begin * l.M, (end - begin) * l.M);
    }
  };
  ForEachImage(l, g.batch, [&](int64_t n) {
    std::vector<uint8_t> expanded;
    const uint8_t* image = ChannelsPerOutput(x + n * l.H * l.W * l.C, l, expanded);
    ForEachPositionRange(l, [&](int64_t p_begin, int64_t p_end) {
      // Input row ih, converted once, is in slot ih % span of the ring while the output rows that read it run.
      // The ring and the accumulators are the thread's scratch, written before they are read (value-initialised
      // vectors per block were 0.9% of EfficientNet-B0 int8's samples, in memset).
      thread_local std::vector<float> ring_scratch, acc_scratch;
      float* const ring = GrowTo(ring_scratch, span * row_len);
      float* const acc = GrowTo(acc_scratch, l.OW * l.M);
      std::vector<int64_t> held(static_cast<size_t>(span), -1);
      std::vector<const float*> in_rows(static_cast<size_t>(l.KH));
      ForEachRowPart(l, p_begin, p_end, [&](int64_t oh, int64_t begin, int64_t end) {
        for (int64_t kh = 0; kh < l.KH; ++kh) {
          const int64_t ih = rows.InputRow(oh, kh);
          if (ih < 0 || ih >= l.H) {
            in_rows[static_cast<size_t>(kh)] = nullptr;
            continue;
          }
          float* slot = ring + ih % span * row_len;
          if (held[static_cast<size_t>(ih % span)] != ih) {
            CenterBytes(image + ih * row_len, x_signed, x_zero_point, row_len, slot);
            held[static_cast<size_t>(ih % span)] = ih;
          }
          in_rows[static_cast<size_t>(kh)] = slot;
        }
        output_row(n, oh, begin, end, in_rows.data(), acc);
      });
    });
  });
}

}  // namespace ptq
