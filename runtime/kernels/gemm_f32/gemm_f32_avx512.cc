// AVX-512F micro-kernels of the float32 GEMM: tiles of up to 6 x 32 (1 x 128, 2 x 64) in zmm registers.
// No Eigen here and AVX-512 only in target("avx512f") functions (see gemm_f32_avx2.cc).
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#define PTQ_AVX512 __attribute__((target("avx512f")))

namespace ptq {
namespace {

// The first n lanes of 16 (0 <= n <= 16).
PTQ_AVX512 inline __mmask16 FirstLanes16(int64_t n) { return static_cast<__mmask16>((1u << n) - 1u); }

// The lanes of `mask` at p, loaded or stored whole when all 16 are on: masked stores cost a few percent of a
// tile of small K (6 x 32, K of 16: 50 -> 54 G multiply-adds/s on Zen 4).
PTQ_AVX512 inline __m512 LoadLanes(__mmask16 mask, const float* p) {
  return mask == 0xFFFF ? _mm512_loadu_ps(p) : _mm512_maskz_loadu_ps(mask, p);
}
PTQ_AVX512 inline void StoreLanes(__mmask16 mask, float* p, __m512 v) {
  if (mask == 0xFFFF) {
    _mm512_storeu_ps(p, v);
  } else {
    _mm512_mask_storeu_ps(p, mask, v);
  }
}

// The F32Tile contract for kRows rows and 16 * kVecs columns (fewer when t.cols says so, by masking
// stores). kMaskB loads only B's first t.cols columns (masked-off lanes are never read, so an unpadded B is
// safe); else B is loaded whole, as a packed (padded) panel allows: a masked load costs 10-15% of the
// tile's rate on Zen 4 (6 x 32 tiles, K of 64 and 256, B in L2: 44-51 -> 51-58 G multiply-adds/s).
template <int kRows, int kVecs, bool kTransA, bool kMaskB>
PTQ_AVX512 void Kernel(const F32Tile& t) {
  __m512 acc[kRows][kVecs];
  __mmask16 mask[kVecs];
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    mask[v] = FirstLanes16(std::clamp<int64_t>(t.cols - 16 * v, 0, 16));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) acc[r][v] = _mm512_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  const int64_t lda = t.lda;
  const int64_t kc = t.kc;
  if (t.c_prefetch != nullptr) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) __builtin_prefetch(t.c_prefetch + r * t.ldc + 16 * v, 1, 3);
    }
  }
  if (t.sum_prefetch != nullptr) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) __builtin_prefetch(t.sum_prefetch + r * t.ld_sum + 16 * v, 0, 3);
    }
  }
  const float* const a_prefetch = kTransA ? nullptr : t.a_prefetch;
  const float* const b_prefetch = t.b_prefetch;
  for (int64_t k = 0; k < kc; ++k) {
    if (b_prefetch != nullptr) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) __builtin_prefetch(b_prefetch + v * t.panel_stride + k * t.b_stride, 0, 2);
    }
    if (a_prefetch != nullptr && k % 16 == 0) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) __builtin_prefetch(a_prefetch + r * lda + k, 0, 1);
    }
    __m512 bv[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      const float* src = b + v * t.panel_stride;
      bv[v] = kMaskB ? LoadLanes(mask[v], src) : _mm512_loadu_ps(src);
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512 ar = _mm512_set1_ps(kTransA ? a[r] : a[r * lda]);
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_fmadd_ps(ar, bv[v], acc[r][v]);
    }
    a += kTransA ? lda : 1;
    b += t.b_stride;
  }
  const __m512 valpha = _mm512_set1_ps(t.alpha);
  const __m512 vbeta = _mm512_set1_ps(t.beta);
  const bool first = t.first, use_beta = t.beta != 0.0f;  // locals: stores to C may alias t
  const float* const row_bias = first ? t.row_bias : nullptr;
  const float* const col_bias = first ? t.col_bias : nullptr;
  const float* const sum = t.last ? t.sum : nullptr;
  const int64_t ld_sum = t.ld_sum;
  const bool clamp = t.last && t.clamp;
  const __m512 lo = _mm512_set1_ps(t.lo), hi = _mm512_set1_ps(t.hi);
  float* const c = t.c;
  const int64_t ldc = t.ldc;
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      float* p = c + r * ldc + 16 * v;
      __m512 out;
      if (!first) {
        out = _mm512_fmadd_ps(valpha, acc[r][v], LoadLanes(mask[v], p));
      } else {
        out = _mm512_mul_ps(valpha, acc[r][v]);
        if (use_beta) out = _mm512_fmadd_ps(vbeta, LoadLanes(mask[v], p), out);
        if (row_bias) out = _mm512_add_ps(out, _mm512_set1_ps(row_bias[r]));
        if (col_bias) out = _mm512_add_ps(out, LoadLanes(mask[v], col_bias + 16 * v));
      }
      if (sum) out = _mm512_add_ps(out, LoadLanes(mask[v], sum + r * ld_sum + 16 * v));
      if (clamp) {  // y < lo ? lo : y, then hi < y ? hi : y (NaN compares false: stays NaN)
        out = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(out, lo, _CMP_LT_OQ), out, lo);
        out = _mm512_mask_blend_ps(_mm512_cmp_ps_mask(hi, out, _CMP_LT_OQ), out, hi);
      }
      StoreLanes(mask[v], p, out);
    }
  }
}

// Picks the instance with just enough vectors for t.cols: a masked load whose lanes are all off still
// costs a microcode assist when its address is unmapped, so none is issued past the tile. B is loaded with
// masks only where a load could pass its readable columns (unpadded, and t.cols not a multiple of 16).
template <bool kTransA, bool kMaskB>
void Dispatch(const F32Tile& t) {
  using KernelFn = void (*)(const F32Tile&);
  static constexpr KernelFn kOneRow[8] = {
      Kernel<1, 1, kTransA, kMaskB>, Kernel<1, 2, kTransA, kMaskB>, Kernel<1, 3, kTransA, kMaskB>,
      Kernel<1, 4, kTransA, kMaskB>, Kernel<1, 5, kTransA, kMaskB>, Kernel<1, 6, kTransA, kMaskB>,
      Kernel<1, 7, kTransA, kMaskB>, Kernel<1, 8, kTransA, kMaskB>};
  static constexpr KernelFn kTwoRows[4] = {Kernel<2, 1, kTransA, kMaskB>, Kernel<2, 2, kTransA, kMaskB>,
                                           Kernel<2, 3, kTransA, kMaskB>, Kernel<2, 4, kTransA, kMaskB>};
  static constexpr KernelFn kMoreRows[2][kF32TileRows - 2] = {
      {Kernel<3, 1, kTransA, kMaskB>, Kernel<4, 1, kTransA, kMaskB>, Kernel<5, 1, kTransA, kMaskB>,
       Kernel<6, 1, kTransA, kMaskB>},
      {Kernel<3, 2, kTransA, kMaskB>, Kernel<4, 2, kTransA, kMaskB>, Kernel<5, 2, kTransA, kMaskB>,
       Kernel<6, 2, kTransA, kMaskB>}};
  const int64_t vecs = (t.cols + 15) / 16;
  if (t.rows == 1) {
    kOneRow[vecs - 1](t);
  } else if (t.rows == 2) {
    kTwoRows[vecs - 1](t);
  } else {
    kMoreRows[vecs - 1][t.rows - 3](t);
  }
}

}  // namespace

void F32TileAvx512(const F32Tile& t) {
  const bool mask_b = !t.b_padded && t.cols % 16 != 0;
  if (t.trans_a) {
    mask_b ? Dispatch<true, true>(t) : Dispatch<true, false>(t);
  } else {
    mask_b ? Dispatch<false, true>(t) : Dispatch<false, false>(t);
  }
}

}  // namespace ptq

#endif  // defined(__x86_64__)
