// The geometry of a pooling window over up to three spatial dimensions, resolved once per input shape,
// and the (padded) plane the pooling kernels read taps from.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// One spatial axis of a pool. For output index o the window starts at start[o] = o * stride -
// pad_begin and its taps k in [k_begin[o], k_end[o]) read input index start[o] + k * dilation,
// which lies in [0, in). padded_count[o] counts the taps inside [-pad_begin, in + pad_end)
// (AveragePool's count_include_pad divisor). extent = (out - 1) * stride + (kernel - 1) * dilation
// + 1 is the padded length that holds every tap.
struct PoolAxis {
  int64_t in = 1;
  int64_t out = 1;
  int64_t kernel = 1;
  int64_t stride = 1;
  int64_t dilation = 1;
  int64_t pad_begin = 0;
  int64_t extent = 1;
  std::vector<int64_t> start;
  std::vector<int64_t> k_begin;
  std::vector<int64_t> k_end;
  std::vector<int64_t> padded_count;
};

// A window of 1 to 3 spatial dims, padded to three axes (depth, height, width) with leading axes
// of size 1, so that pooling kernels need one 3-D loop nest.
struct PoolPlan {
  PoolAxis axes[3];
  int64_t in_size = 1;   // input elements per (n, c) plane
  int64_t out_size = 1;  // output elements per (n, c) plane
  // Whether some tap falls outside the input, so that taps are read from a padded copy of each
  // plane; plane_h / plane_w / plane_size describe the plane taps are read from (the copy or the input).
  bool padded = false;
  int64_t plane_h = 1;
  int64_t plane_w = 1;
  int64_t plane_size = 1;
  // Offsets in that plane of a window's taps from its first tap: kd * dilation_d * plane_h * plane_w +
  // kh * dilation_h * plane_w + kw * dilation_w, for every (kd, kh, kw).
  std::vector<int64_t> taps;
};

// Throws an input error when the window has more than three spatial dimensions.
PoolPlan MakePoolPlan(const SlidingWindow& w);

// Reads the pooling attributes and resolves the window for X [N, C, D1..Dn]: kernel_shape is
// required; group is not a pooling attribute. Errors name the input or attribute.
SlidingWindow ResolvePoolWindow(const ConvAttributes& attrs, const Shape& x_shape);

// AveragePool's divisor of each output of one plane: its taps inside x, or inside the padded extent
// [-pad_begin, in + pad_end) when count_include_pad; 1 for a window without taps (its sum is 0).
// Exact: counts are far below 2^24.
std::vector<float> AveragePoolCounts(const PoolPlan& p, bool count_include_pad);

// The plane the taps of one (n, c) plane x are read from: x itself when !p.padded, else `scratch`
// (p.plane_size elements) holding `fill` with x copied in at offset pad_begin on every axis. Tap k of
// output o along an axis is at index o * stride + k * dilation of the returned plane.
template <class T>
const T* PoolSource(const T* x, const PoolPlan& p, T fill, T* scratch) {
  if (!p.padded) return x;
  std::fill(scratch, scratch + p.plane_size, fill);
  const PoolAxis& ad = p.axes[0];
  const PoolAxis& ah = p.axes[1];
  const PoolAxis& aw = p.axes[2];
  const int64_t d_end = std::min(ad.in, ad.extent - ad.pad_begin);
  const int64_t h_end = std::min(ah.in, ah.extent - ah.pad_begin);
  const int64_t w_end = std::min(aw.in, aw.extent - aw.pad_begin);
  for (int64_t d = 0; d < d_end; ++d) {
    for (int64_t h = 0; h < h_end; ++h) {
      const T* src = x + (d * ah.in + h) * aw.in;
      T* dst = scratch + ((d + ad.pad_begin) * p.plane_h + h + ah.pad_begin) * p.plane_w + aw.pad_begin;
      std::copy(src, src + w_end, dst);
    }
  }
  return scratch;
}

// One block of B consecutive outputs of one output row, whose first window's first tap is at
// `first`: out[j] = op folded over the taps of window j, starting from init. op combines two Eigen
// arrays of B elements (a.max(b), a + b), so the accumulators stay in vector registers.
template <int B, class T, class Op>
void PoolBlock(const T* first, const std::vector<int64_t>& taps, int64_t stride, T init, Op op, T* out) {
  using Block = Eigen::Array<T, B, 1>;
  Block acc = Block::Constant(init);
  if (stride == 1) {
    for (int64_t tap : taps) acc = op(acc, Eigen::Map<const Block>(first + tap));
  } else {
    for (int64_t tap : taps) {
      acc = op(acc, Eigen::Map<const Block, 0, Eigen::InnerStride<>>(first + tap, Eigen::InnerStride<>(stride)));
    }
  }
  Eigen::Map<Block> result(out);
  result = acc;
}

// y[o] = op folded over the taps of window o, starting from init, for every output of one plane;
// `src` is PoolSource's plane.
template <class T, class Op>
void PoolPlane(const T* src, const PoolPlan& p, T init, Op op, T* y) {
  constexpr int kBlock = 16;
  const PoolAxis& ad = p.axes[0];
  const PoolAxis& ah = p.axes[1];
  const int64_t OW = p.axes[2].out, sw = p.axes[2].stride;
  for (int64_t od = 0; od < ad.out; ++od) {
    for (int64_t oh = 0; oh < ah.out; ++oh) {
      const T* row = src + (od * ad.stride * p.plane_h + oh * ah.stride) * p.plane_w;  // first tap of ow = 0
      T* out = y + (od * ah.out + oh) * OW;
      int64_t ow = 0;
      for (; ow + kBlock <= OW; ow += kBlock) PoolBlock<kBlock>(row + ow * sw, p.taps, sw, init, op, out + ow);
      if (ow + kBlock / 2 <= OW) {
        PoolBlock<kBlock / 2>(row + ow * sw, p.taps, sw, init, op, out + ow);
        ow += kBlock / 2;
      }
      if (ow + kBlock / 4 <= OW) {
        PoolBlock<kBlock / 4>(row + ow * sw, p.taps, sw, init, op, out + ow);
        ow += kBlock / 4;
      }
      for (; ow < OW; ++ow) PoolBlock<1>(row + ow * sw, p.taps, sw, init, op, out + ow);
    }
  }
}

}  // namespace ptq
