// The float channels-last depthwise interior with AVX-512: 16 channels per register (the last ones masked),
// blocks of 8 positions; kernels 3 or 5 taps wide of stride 1 or 2 load each input column once per kernel row.
#include "runtime/kernels/conv/depthwise_nhwc_interior.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define PTQ_AVX512 __attribute__((target("avx512f")))
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 and its AVX-512 pass-through operands

namespace ptq {
namespace {

// One block of 16 channels (mask k, the channels past the last one off) of a block of positions.
struct LaneBlock {
  int64_t x;       // the block's first position and channel, from each tap's pointer
  const float* w;  // tap 0's weights of this block's channels
  float* y;
  __m512 init;
  __mmask16 k;
};

// The clamp, then the kPositions positions stored.
template <int kPositions>
PTQ_AVX512 inline void Store(const DepthwiseInteriorRow& r, const LaneBlock& b, __m512* acc, __m512 lo, __m512 hi) {
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) {
    __m512 v = acc[p];
    if (r.clamp) {  // y < lo ? lo : y, then hi < y ? hi : y: vmaxps(a, b) is a > b ? a : b, vminps a < b ? a : b
      v = _mm512_max_ps(lo, v);
      v = _mm512_min_ps(hi, v);
    }
    _mm512_mask_storeu_ps(b.y + p * r.channels, b.k, v);
  }
}

// Any window: tap by tap, the tap's weights loaded once for the kPositions positions.
template <int kPositions>
PTQ_AVX512 void TapByTap(const DepthwiseInteriorRow& r, const LaneBlock& b, __m512 lo, __m512 hi) {
  __m512 acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = b.init;
  for (int64_t t = 0; t < r.taps; ++t) {
    const __m512 wt = _mm512_maskz_loadu_ps(b.k, b.w + t * r.channels);
    const float* xt = r.tap_x[t] + b.x;
#pragma GCC unroll 8
    for (int p = 0; p < kPositions; ++p) {
      acc[p] = _mm512_fmadd_ps(wt, _mm512_maskz_loadu_ps(b.k, xt + p * r.x_step), acc[p]);
    }
  }
  Store<kPositions>(r, b, acc, lo, hi);
}

// A window kKw taps wide with no dilation along the width, of stride kStride: in each kernel row, position p's
// tap kw reads input column p * kStride + kw, so the row's columns are loaded once each and feed every position
// that reads them, in column order (each position still sums its taps in (kh, kw) order).
template <int kKw, int kStride, int kPositions>
PTQ_AVX512 void Sliding(const DepthwiseInteriorRow& r, const LaneBlock& b, __m512 lo, __m512 hi) {
  constexpr int kColumns = (kPositions - 1) * kStride + kKw;
  const int64_t C = r.channels, rows = r.taps / kKw;
  __m512 acc[kPositions];
#pragma GCC unroll 8
  for (int p = 0; p < kPositions; ++p) acc[p] = b.init;
  for (int64_t kh = 0; kh < rows; ++kh) {
    const float* xr = r.tap_x[kh * kKw] + b.x;
    __m512 wk[kKw];
#pragma GCC unroll 5
    for (int kw = 0; kw < kKw; ++kw) wk[kw] = _mm512_maskz_loadu_ps(b.k, b.w + (kh * kKw + kw) * C);
#pragma GCC unroll 32
    for (int c = 0; c < kColumns; ++c) {
      const __m512 column = _mm512_maskz_loadu_ps(b.k, xr + c * C);
#pragma GCC unroll 8
      for (int p = 0; p < kPositions; ++p) {
        const int kw = c - p * kStride;
        if (kw >= 0 && kw < kKw) acc[p] = _mm512_fmadd_ps(wk[kw], column, acc[p]);
      }
    }
  }
  Store<kPositions>(r, b, acc, lo, hi);
}

using BlockFn = void (*)(const DepthwiseInteriorRow&, const LaneBlock&, __m512, __m512);

// The kernels for blocks of 8, 4 and 1 positions.
struct Kernels {
  BlockFn p8, p4, p1;
};

template <int kKw, int kStride>
constexpr Kernels SlidingKernels() {
  return {Sliding<kKw, kStride, 8>, Sliding<kKw, kStride, 4>, Sliding<kKw, kStride, 1>};
}

// Sliding kernels for kernel rows of 3 or 5 adjacent taps (no dilation) and stride 1 or 2, else tap by tap.
Kernels ChooseKernels(const DepthwiseInteriorRow& r) {
  if (r.dilation == 1 && (r.row_taps == 3 || r.row_taps == 5)) {
    if (r.x_step == r.channels) return r.row_taps == 3 ? SlidingKernels<3, 1>() : SlidingKernels<5, 1>();
    if (r.x_step == 2 * r.channels) return r.row_taps == 3 ? SlidingKernels<3, 2>() : SlidingKernels<5, 2>();
  }
  return {TapByTap<8>, TapByTap<4>, TapByTap<1>};
}

}  // namespace

PTQ_AVX512 void DepthwiseInteriorRowAvx512(const DepthwiseInteriorRow& r) {
  const Kernels kernels = ChooseKernels(r);
  const __m512 lo = _mm512_set1_ps(r.lo), hi = _mm512_set1_ps(r.hi);
  const int64_t C = r.channels;
  // Positions outer, channels inner: a block's input lines are read while in cache.
  for (int64_t o = 0; o < r.count;) {
    const int64_t left = r.count - o;
    const int positions = left >= 8 ? 8 : left >= 4 ? 4 : 1;
    const BlockFn fn = positions == 8 ? kernels.p8 : positions == 4 ? kernels.p4 : kernels.p1;
    for (int64_t m = 0; m < C; m += 16) {
      LaneBlock b;
      b.k = C - m >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << (C - m)) - 1);
      b.x = o * r.x_step + m;
      b.w = r.weights + m;
      b.y = r.y + o * C + m;
      b.init = r.bias != nullptr ? _mm512_maskz_loadu_ps(b.k, r.bias + m) : _mm512_setzero_ps();
      fn(r, b, lo, hi);
    }
    o += positions;
  }
}

}  // namespace ptq

#endif
