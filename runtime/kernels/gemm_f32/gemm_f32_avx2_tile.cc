// AVX2+FMA micro-kernels of the float32 GEMM: tiles of up to 6 x 16 (1 x 64, 2 x 32) in ymm registers, with
// the epilogue (bias, residual, clamp) applied in the store. No Eigen here and AVX2 only in target("avx2,fma")
// functions (see gemm_f32_avx2.cc).
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"

#include <algorithm>
#include <cstdlib>

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ptq {

#if defined(__x86_64__)
namespace {

constexpr int64_t kMr = kF32TileRows;
constexpr int64_t kNr = kF32PanelCols;

// y < lo ? lo : y, then hi < y ? hi : y, as the Clip kernel computes it: vmaxps(a, b) is a > b ? a : b and
// vminps(a, b) a < b ? a : b, lane by lane (a NaN y compares false and stays; of equal zeros y stays).
PTQ_AVX2 inline __m256 ClampVector(__m256 y, __m256 lo, __m256 hi) {
  return _mm256_min_ps(hi, _mm256_max_ps(lo, y));
}

// The F32Tile store of 8 floats at p (all when `full`, else the lanes of `mask`).
PTQ_AVX2 inline void StoreVector(__m256 acc, float* p, bool full, __m256i mask, bool first, __m256 valpha,
                                 float beta, const float* bias, const float* col_bias, const float* sum, bool clamp,
                                 __m256 lo, __m256 hi) {
  const bool read_c = !first || beta != 0.0f;
  const __m256 old = !read_c ? _mm256_setzero_ps() : full ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, mask);
  __m256 v;
  if (!first) {
    v = _mm256_fmadd_ps(valpha, acc, old);
  } else {
    v = _mm256_mul_ps(valpha, acc);
    if (beta != 0.0f) v = _mm256_fmadd_ps(_mm256_set1_ps(beta), old, v);
    if (bias) v = _mm256_add_ps(v, _mm256_set1_ps(*bias));
    if (col_bias) v = _mm256_add_ps(v, full ? _mm256_loadu_ps(col_bias) : _mm256_maskload_ps(col_bias, mask));
  }
  if (sum) v = _mm256_add_ps(v, full ? _mm256_loadu_ps(sum) : _mm256_maskload_ps(sum, mask));
  if (clamp) {  // y < lo ? lo : y, then hi < y ? hi : y: ClampVector
    v = ClampVector(v, lo, hi);
  }
  if (full) {
    _mm256_storeu_ps(p, v);
  } else {
    _mm256_maskstore_ps(p, mask, v);
  }
}

// The F32Tile contract for kRows x 8 * kVecs columns (fewer stored when t.cols says so). kMaskB loads
// only the first t.cols columns of B (unpadded B). Constant indices into acc only, so that
// it stays in registers.
template <int kRows, int kVecs, bool kTransA, bool kMaskB>
PTQ_AVX2 void MicroKernel(const F32Tile& t) {
  __m256 acc[kRows][kVecs];
  __m256i mask[kVecs];
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    mask[v] = F32FirstLanes(std::clamp<int64_t>(t.cols - 8 * v, 0, 8));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) acc[r][v] = _mm256_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  const int64_t lda = t.lda;
  const int64_t kc = t.kc;
  if (t.c_prefetch != nullptr) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; v += 2) __builtin_prefetch(t.c_prefetch + r * t.ldc + 8 * v, 1, 3);
    }
  }
  if (t.sum_prefetch != nullptr) {
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; v += 2) __builtin_prefetch(t.sum_prefetch + r * t.ld_sum + 8 * v, 0, 3);
    }
  }
  const float* const a_prefetch = kTransA ? nullptr : t.a_prefetch;
  const float* const b_prefetch = t.b_prefetch;
  for (int64_t k = 0; k < kc; ++k) {
    if (b_prefetch != nullptr) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; v += 2) __builtin_prefetch(b_prefetch + v / 2 * t.panel_stride + k * t.b_stride, 0, 2);
    }
    if (a_prefetch != nullptr && k % 16 == 0) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) __builtin_prefetch(a_prefetch + r * lda + k, 0, 1);
    }
    __m256 bv[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      const float* src = b + v / 2 * t.panel_stride + v % 2 * 8;
      bv[v] = kMaskB ? _mm256_maskload_ps(src, mask[v]) : _mm256_loadu_ps(src);
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m256 ar = _mm256_broadcast_ss(kTransA ? a + r : a + r * lda);
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_fmadd_ps(ar, bv[v], acc[r][v]);
    }
    a += kTransA ? lda : 1;
    b += t.b_stride;
  }
  const __m256 valpha = _mm256_set1_ps(t.alpha);
  const float beta = t.beta;  // locals: stores to C may alias t
  const bool first = t.first;
  float* const c = t.c;
  const int64_t ldc = t.ldc, cols = t.cols;
  const float* const row_bias = first ? t.row_bias : nullptr;
  const float* const col_bias = first ? t.col_bias : nullptr;
  const float* const sum = t.last ? t.sum : nullptr;
  const int64_t ld_sum = t.ld_sum;
  const bool clamp = t.last && t.clamp;
  const __m256 lo = _mm256_set1_ps(t.lo), hi = _mm256_set1_ps(t.hi);
  if (cols == 8 * kVecs) {  // every vector whole: StoreVector's steps, each one pass over the registers
    if (!first) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < kVecs; ++v) {
          acc[r][v] = _mm256_fmadd_ps(valpha, acc[r][v], _mm256_loadu_ps(c + r * ldc + 8 * v));
        }
      }
    } else {
      if (t.alpha != 1.0f) {  // alpha * acc is acc itself for alpha 1 (a NaN stays the same NaN)
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
          for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_mul_ps(valpha, acc[r][v]);
        }
      }
      if (beta != 0.0f) {
        const __m256 vbeta = _mm256_set1_ps(beta);
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
          for (int v = 0; v < kVecs; ++v) {
            acc[r][v] = _mm256_fmadd_ps(vbeta, _mm256_loadu_ps(c + r * ldc + 8 * v), acc[r][v]);
          }
        }
      }
      if (row_bias) {
#pragma GCC unroll 8
        for (int r = 0; r < kRows; ++r) {
          const __m256 b = _mm256_set1_ps(row_bias[r]);
#pragma GCC unroll 8
          for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_add_ps(acc[r][v], b);
        }
      }
      if (col_bias) {
#pragma GCC unroll 8
        for (int v = 0; v < kVecs; ++v) {
          const __m256 b = _mm256_loadu_ps(col_bias + 8 * v);
#pragma GCC unroll 8
          for (int r = 0; r < kRows; ++r) acc[r][v] = _mm256_add_ps(acc[r][v], b);
        }
      }
    }
    if (sum) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_add_ps(acc[r][v], _mm256_loadu_ps(sum + r * ld_sum + 8 * v));
      }
    }
    if (clamp) {
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
        for (int v = 0; v < kVecs; ++v) {
          acc[r][v] = ClampVector(acc[r][v], lo, hi);
        }
      }
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) _mm256_storeu_ps(c + r * ldc + 8 * v, acc[r][v]);
    }
    return;
  }
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      if (cols <= 8 * v) continue;
      StoreVector(acc[r][v], c + r * ldc + 8 * v, cols >= 8 * (v + 1), mask[v], first, valpha, beta,
                  row_bias ? row_bias + r : nullptr, col_bias ? col_bias + 8 * v : nullptr,
                  sum ? sum + r * ld_sum + 8 * v : nullptr, clamp, lo, hi);
    }
  }
}

// The tile with ymm registers: rows x 16 columns, or, when full, 1 x 64 and 2 x 32 (enough independent
// FMA chains to hide the FMA latency); other tiles of 1 or 2 rows go 16 columns at a time.
template <bool kTransA>
PTQ_AVX2 void F32TileAvx2(const F32Tile& t) {
  using KernelFn = void (*)(const F32Tile&);
  static constexpr KernelFn kKernels[2][kMr] = {
      {MicroKernel<1, 2, kTransA, false>, MicroKernel<2, 2, kTransA, false>, MicroKernel<3, 2, kTransA, false>,
       MicroKernel<4, 2, kTransA, false>, MicroKernel<5, 2, kTransA, false>, MicroKernel<6, 2, kTransA, false>},
      {MicroKernel<1, 2, kTransA, true>, MicroKernel<2, 2, kTransA, true>, MicroKernel<3, 2, kTransA, true>,
       MicroKernel<4, 2, kTransA, true>, MicroKernel<5, 2, kTransA, true>, MicroKernel<6, 2, kTransA, true>}};
  // Half a panel (N edges at 8 mod 16: 24, 40, 56 channels): one vector per row, no work on the padding.
  static constexpr KernelFn kHalf[2][kMr] = {
      {MicroKernel<1, 1, kTransA, false>, MicroKernel<2, 1, kTransA, false>, MicroKernel<3, 1, kTransA, false>,
       MicroKernel<4, 1, kTransA, false>, MicroKernel<5, 1, kTransA, false>, MicroKernel<6, 1, kTransA, false>},
      {MicroKernel<1, 1, kTransA, true>, MicroKernel<2, 1, kTransA, true>, MicroKernel<3, 1, kTransA, true>,
       MicroKernel<4, 1, kTransA, true>, MicroKernel<5, 1, kTransA, true>, MicroKernel<6, 1, kTransA, true>}};
  if (t.rows == 1 && t.cols == 4 * kNr) {
    MicroKernel<1, 8, kTransA, false>(t);
  } else if (t.rows == 2 && t.cols == 2 * kNr) {
    MicroKernel<2, 4, kTransA, false>(t);
  } else {
    for (int64_t j = 0; j * kNr < t.cols; ++j) {
      F32Tile panel = t;
      panel.b += j * t.panel_stride;
      panel.c += j * kNr;
      panel.cols = std::min(kNr, t.cols - j * kNr);
      if (j > 0) panel.a_prefetch = nullptr;  // A's lines once per tile
      if (panel.c_prefetch != nullptr) panel.c_prefetch += j * kNr;
      if (panel.sum_prefetch != nullptr) panel.sum_prefetch += j * kNr;
      if (panel.b_prefetch != nullptr) panel.b_prefetch += j * t.panel_stride;
      if (panel.cols <= 8) {
        kHalf[!t.b_padded && panel.cols < 8][t.rows - 1](panel);
      } else {
        kKernels[!t.b_padded && panel.cols < kNr][t.rows - 1](panel);
      }
    }
  }
}

// F32FullTilesAvx2: `count` whole tiles side by side (kMr rows, 16 columns of a packed panel each, A not transposed), from t:
// tile j reads panel j and writes 16 columns on. The same micro-kernel as F32TileAvx2's, without its
// dispatch per tile (which cost as much as the tile itself for a K of 16).
PTQ_AVX2 void FullTilesAvx2(F32Tile t, int64_t count) {
  for (int64_t j = 0; j < count; ++j) {
    MicroKernel<kMr, 2, false, false>(t);
    t.b += t.panel_stride;
    t.c += kNr;
    t.a_prefetch = nullptr;  // A's lines once per row block
    if (t.c_prefetch != nullptr) t.c_prefetch += kNr;
    if (t.sum_prefetch != nullptr) t.sum_prefetch += kNr;
    if (t.col_bias != nullptr) t.col_bias += kNr;
    if (t.sum != nullptr) t.sum += kNr;
  }
}

}  // namespace

void F32TileAvx2(const F32Tile& t) {
  if (t.trans_a) {
    F32TileAvx2<true>(t);
  } else {
    F32TileAvx2<false>(t);
  }
}

void F32FullTilesAvx2(const F32Tile& t, int64_t count) { FullTilesAvx2(t, count); }

#else  // not x86-64: GetCpuFeatures().avx2_fma is always false, so these are never called.

void F32TileAvx2(const F32Tile&) { std::abort(); }
void F32FullTilesAvx2(const F32Tile&, int64_t) { std::abort(); }

#endif

}  // namespace ptq
