// The float channels-last depthwise convolution over the interior of an output row (every tap inside the
// image): 8 channels per register, four output positions at once, taps read at fixed offsets (AVX2+FMA).
#include "runtime/kernels/conv/depthwise_nhwc_interior.h"

#include <cstdlib>

#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ptq {

#if defined(__x86_64__)
namespace {

// acc = fma(w[t], x[t], acc) for every tap, then the clamp, stored: kPositions positions of 8 channels, the first
// at offset x from each tap's pointer.
template <int kPositions>
PTQ_AVX2 inline void Positions8(const DepthwiseInteriorRow& r, int64_t x, float* y, const float* w, __m256 init,
                                __m256 lo, __m256 hi) {
  __m256 acc[kPositions];
#pragma GCC unroll 4
  for (int p = 0; p < kPositions; ++p) acc[p] = init;
  for (int64_t t = 0; t < r.taps; ++t) {
    const __m256 wt = _mm256_loadu_ps(w + t * r.channels);
    const float* xt = r.tap_x[t] + x;
#pragma GCC unroll 4
    for (int p = 0; p < kPositions; ++p) acc[p] = _mm256_fmadd_ps(wt, _mm256_loadu_ps(xt + p * r.x_step), acc[p]);
  }
#pragma GCC unroll 4
  for (int p = 0; p < kPositions; ++p) {
    __m256 v = acc[p];
    if (r.clamp) {  // y < lo ? lo : y, then hi < y ? hi : y: vmaxps(a, b) is a > b ? a : b, vminps a < b ? a : b
      v = _mm256_max_ps(lo, v);
      v = _mm256_min_ps(hi, v);
    }
    _mm256_storeu_ps(y + p * r.channels, v);
  }
}

// Positions [o0, o0 + kPositions): every block of 8 channels, then the channels past the last 8 one at a time
// (the same operations). Channels inner, so that the taps' input lines are read once, while in cache.
template <int kPositions>
PTQ_AVX2 void PositionBlock(const DepthwiseInteriorRow& r, int64_t o0, __m256 lo, __m256 hi) {
  const int64_t C = r.channels;
  const int64_t x = o0 * r.x_step;  // position o0's offset from position 0's
  float* y = r.y + o0 * C;
  int64_t m = 0;
  for (; m + 8 <= C; m += 8) {
    const __m256 init = r.bias != nullptr ? _mm256_loadu_ps(r.bias + m) : _mm256_setzero_ps();
    Positions8<kPositions>(r, x + m, y + m, r.weights + m, init, lo, hi);
  }
  for (; m < C; ++m) {
    for (int64_t o = 0; o < kPositions; ++o) {
      float v = r.bias != nullptr ? r.bias[m] : 0.0f;
      const int64_t at = x + o * r.x_step + m;
      for (int64_t t = 0; t < r.taps; ++t) v = __builtin_fmaf(r.weights[t * C + m], r.tap_x[t][at], v);
      if (r.clamp) {
        v = v < r.lo ? r.lo : v;
        v = r.hi < v ? r.hi : v;
      }
      y[o * C + m] = v;
    }
  }
}

PTQ_AVX2 void InteriorAvx2(const DepthwiseInteriorRow& r) {
  const __m256 lo = _mm256_set1_ps(r.lo), hi = _mm256_set1_ps(r.hi);
  int64_t o = 0;
  for (; o + 4 <= r.count; o += 4) PositionBlock<4>(r, o, lo, hi);
  for (; o < r.count; ++o) PositionBlock<1>(r, o, lo, hi);
}

}  // namespace

void DepthwiseInteriorRowF32(const DepthwiseInteriorRow& r) {
  if (GetCpuFeatures().avx512f) {
    DepthwiseInteriorRowAvx512(r);
    return;
  }
  InteriorAvx2(r);
}

#else  // not x86-64: callers check GetCpuFeatures().avx2_fma, always false here.

void DepthwiseInteriorRowF32(const DepthwiseInteriorRow&) { std::abort(); }

#endif

}  // namespace ptq
