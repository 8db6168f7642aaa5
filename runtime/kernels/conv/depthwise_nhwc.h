// Depthwise convolution with channels last (ConvGeometry::channels_last), float and integer: every tap of
// an output position is a contiguous run of channels, summed over blocks of channels held in registers.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/int8_gemm/int8_gemm.h"
#include "runtime/kernels/row_finish.h"

namespace ptq {

// DepthwiseConv (depthwise_conv.h) on x [N, H, W, C] into y [N, OH, OW, M]: y starts from bias (or 0),
// then y = fma(w[m, t], x[tap t], y) for the taps t in (kh, kw) order (zero padding adds exact zeros),
// then the activation's clamp: the same bits as DepthwiseConv on the NCHW tensors. When set, finish_row(row, n)
// is called on each output row's n values once they are written (a further activation, while in cache).
// REQUIRES: IsDepthwise(g), g.channels_last, 2 spatial dimensions; T is float or double.
template <class T>
void DepthwiseConvNhwc(const T* x, const T* w, const T* bias, const ConvGeometry& g, T* y,
                       const GemmEpilogue<T>& activation, const RowFinish<T>* finish_row = nullptr);

// DepthwiseConvNhwc one output row at a time, for a caller that holds the input rows itself (the ring of rows
// a pointwise convolution writes in pointwise_depthwise_nhwc.h); the same operations per output.
template <class T>
class DepthwiseNhwcRows {
 public:
  // The input rows hold g.out_channels values per position (DepthwiseConvNhwc repeats each input channel
  // out_channels / in_channels times first). w is [M, taps] as in the model, transposed here; or, when
  // `taps_major`, already [taps][M], used in place (it then outlives this object). REQUIRES: as DepthwiseConvNhwc.
  DepthwiseNhwcRows(const T* w, const T* bias, const ConvGeometry& g, const GemmEpilogue<T>& activation,
                    const RowFinish<T>* finish_row, bool taps_major = false);

  // The input row that tap row kh of output row oh reads: oh * stride - pad + kh * dilation (outside the image
  // below 0 or from the image's height on).
  int64_t InputRow(int64_t oh, int64_t kh) const { return oh * sh_ - ph_ + kh * dh_; }
  int64_t kernel_rows() const { return KH_; }
  // Output row oh (its OW x M values) into yrow: in_rows[kh] points at input row InputRow(oh, kh) (W x M
  // values), or is nullptr where that row lies outside the image.
  void Run(const T* const* in_rows, T* yrow) const { Run(in_rows, yrow, 0, OW_); }
  // Only the output columns [begin, end) of that row (yrow still points at the row's first position); finish_row
  // then runs on their (end - begin) x M values.
  void Run(const T* const* in_rows, T* yrow, int64_t begin, int64_t end) const;

 private:
  void Positions(const T* const* in_rows, int64_t begin, int64_t end, T* yrow) const;

  int64_t W_, OW_, KH_, KW_, sh_, sw_, dh_, dw_, ph_, pw_, M_;
  // [taps][M]: wt_ when transposed here, else w_ (the caller's). Copies of this object keep their own wt_.
  const T* weights() const { return w_ != nullptr ? w_ : wt_.data(); }

  std::vector<T> wt_;
  const T* w_ = nullptr;
  const T* zeros_ = nullptr;    // W x M padding values (SharedZeros): a tap outside the image, or a kernel row
                                // outside it for the interior kernel
  const T* bias_;
  GemmEpilogue<T> activation_;
  const RowFinish<T>* finish_row_;
  int64_t col_begin_ = 0, col_end_ = 0;  // output columns whose taps all lie inside the image along the width
  bool interior_ = false;                // float on AVX2: those columns by DepthwiseInteriorRowF32, in every row
};

// Int8DepthwiseConv (depthwise_conv.h) with channels last, the same results: DepthwiseNhwcRows<float> on input
// rows converted once to x - x_zero_point (taps outside x then read zeros) and weights w - w_zero_point, each
// sum exact in float32 (its terms are integers and it stays below 2^24 in magnitude), then the bias and the
// requantization of RequantizeChannels; with float output and `finish`, finish(row, OW * M) on each output
// row once stored.
// REQUIRES: IsDepthwise(g), g.channels_last, 2 spatial dimensions, kernel points <= kMaxExactDepthwiseTaps.
// w_centered (or nullptr: computed here) is CenteredDepthwiseWeights(w, ...), computed once for constant weights.
void Int8DepthwiseConvNhwc(const uint8_t* x, bool x_signed, int32_t x_zero_point, const uint8_t* w, bool w_signed,
                           const int32_t* w_zero_point, const ConvGeometry& g, const int32_t* bias, Int8Output out,
                           const float* multiplier, int32_t y_zero_point, void* y, const float* float_bias,
                           const FloatRowFinish* finish = nullptr, const float* w_centered = nullptr);

// The depthwise weights w [M, taps] (8-bit, signedness given) as float w - w_zero_point[m], taps major: [taps][M].
std::vector<float> CenteredDepthwiseWeights(const uint8_t* w, bool w_signed, const int32_t* w_zero_point, int64_t M,
                                            int64_t taps);

// acc[m] = fma(w[t * M + m], x[t][m], acc[m]) for t < taps in order, for m < M (acc holds the start).
void DepthwiseTapsF32(const float* const* x, const float* w, int64_t taps, int64_t M, float* acc);

}  // namespace ptq
