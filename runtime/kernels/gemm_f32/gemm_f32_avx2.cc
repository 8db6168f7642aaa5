// Float32 GEMM: B packed into K x 16 panels, K and N blocking, OpenMP over tiles, and the AVX2+FMA
// micro-kernels (6 x 16 ymm tiles); the AVX-512 ones are in gemm_f32_avx512.cc. Only these files'
// target("avx2,fma") / target("avx512f") functions use those instruction sets (no -mavx2), and they
// include no Eigen, so no inline function is compiled twice for different instruction sets.
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

#include <omp.h>

#include <algorithm>
#include <cstdlib>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_tile.h"
#include "runtime/threading.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ptq {

F32Kernels BestF32Kernels() { return GetCpuFeatures().avx512f ? F32Kernels::kAvx512 : F32Kernels::kAvx2; }

int64_t F32GemmKBlock(int64_t K) {
  constexpr int64_t kMaxBlock = 256;  // one packed panel is 16 KiB, stays in L1 across a tile
  const int64_t blocks = (K + kMaxBlock - 1) / kMaxBlock;
  return (K + blocks - 1) / blocks;
}

#if defined(__x86_64__)
namespace {

constexpr int64_t kMr = kF32TileRows;
constexpr int64_t kNr = kF32PanelCols;
constexpr int64_t kNc = 512;     // N block: a packed kc x kNc block (512 KiB at most) stays in L2
constexpr int64_t kParallelMinMacs = int64_t{1} << 18;  // smaller products run on the calling thread
// A non-transposed B is read in place for few rows (packing would cost more than it saves) or when
// small (it then stays in L2 in its own layout; large strided blocks suffer set conflicts and TLB misses).
constexpr int64_t kInPlaceBMaxRows = 4 * kMr;
constexpr int64_t kInPlaceBMaxFloats = 64 * 1024;

// The arguments of GemmF32Avx2.
struct Problem {
  bool trans_a, trans_b;
  int64_t M, N, K;
  float alpha;
  const float* a;
  int64_t lda;
  const float* b;
  int64_t ldb;
  float beta;
  float* c;
  int64_t ldc;
  F32Kernels kernels;
  GemmEpilogue<float> epilogue;
  const float* const* b_rows;  // B(k, n) = b_rows[k][n] when set (not transposed; always packed)
  const float* prepacked;      // B packed by PackF32B (then b, b_rows and trans_b are not read)
  int64_t k_begin = 0, k_end = 0;  // the K blocks computed; a holds A's columns from k_begin on
};

// One N block times one K block: columns [n0, n0 + nc), k in [k0, k0 + kc).
struct Block {
  int64_t n0, nc, k0, kc;
  float* packed;        // kc x 16 panels, zero-padded, from panel first_panel on; nullptr: B in place
  int64_t first_panel;  // the block's panel (16 columns from n0 + 16 * panel) at packed[0]
};

// _mm256_loadu_si256(kLaneMask + 8 - n) enables the first n of 8 lanes (0 <= n <= 8).
alignas(64) const int32_t kLaneMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};

PTQ_AVX2 inline __m256i FirstLanes(int64_t n) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + 8 - n));
}

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
    mask[v] = FirstLanes(std::clamp<int64_t>(t.cols - 8 * v, 0, 8));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) acc[r][v] = _mm256_setzero_ps();
  }
  const float* a = t.a;
  const float* b = t.b;
  const int64_t lda = t.lda;
  const int64_t kc = t.kc;
  for (int64_t k = 0; k < kc; ++k) {
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
      if (panel.cols <= 8) {
        kHalf[!t.b_padded && panel.cols < 8][t.rows - 1](panel);
      } else {
        kKernels[!t.b_padded && panel.cols < kNr][t.rows - 1](panel);
      }
    }
  }
}

// How many 16-column panels one tile spans: lone rows get wider tiles, for 8 independent FMA chains.
int64_t PanelsPerTile(F32Kernels kernels, int64_t M) {
  const int64_t avx2 = M == 1 ? 4 : M == 2 ? 2 : 1;
  return kernels == F32Kernels::kAvx512 ? 2 * avx2 : avx2;
}

// The tile of rows [m0, m0 + rows) by `panels` panels from `panel` of blk (fewer at the N edge), one K block.
F32Tile MakeTile(const Problem& p, const Block& blk, int64_t m0, int64_t rows, int64_t panel, int64_t panels) {
  const bool in_place = blk.packed == nullptr;
  const int64_t n0 = blk.n0 + panel * kNr;
  F32Tile t;
  t.trans_a = p.trans_a;
  t.lda = p.lda;
  const int64_t ka = blk.k0 - p.k_begin;  // the block's first column in a
  t.a = p.trans_a ? p.a + ka * p.lda + m0 : p.a + m0 * p.lda + ka;
  t.b_stride = in_place ? p.ldb : kNr;
  t.panel_stride = in_place ? kNr : blk.kc * kNr;
  t.b = in_place ? p.b + blk.k0 * p.ldb + n0 : blk.packed + (panel - blk.first_panel) * t.panel_stride;
  t.b_padded = !in_place;
  t.c = p.c + m0 * p.ldc + n0;
  t.ldc = p.ldc;
  t.kc = blk.kc;
  t.rows = rows;
  t.cols = std::min(panels * kNr, blk.n0 + blk.nc - n0);
  t.alpha = p.alpha;
  t.beta = p.beta;
  t.first = blk.k0 == 0;
  t.last = blk.k0 + blk.kc == p.K;
  t.row_bias = p.epilogue.row_bias ? p.epilogue.row_bias + m0 : nullptr;
  t.col_bias = p.epilogue.col_bias ? p.epilogue.col_bias + n0 : nullptr;
  t.sum = p.epilogue.sum ? p.epilogue.sum + m0 * p.epilogue.ld_sum + n0 : nullptr;
  t.ld_sum = p.epilogue.ld_sum;
  t.clamp = p.epilogue.clamp;
  t.lo = p.epilogue.lo;
  t.hi = p.epilogue.hi;
  return t;
}

void RunTile(const Problem& p, const Block& blk, int64_t m0, int64_t rows, int64_t panel, int64_t panels) {
  const F32Tile t = MakeTile(p, blk, m0, rows, panel, panels);
  if (p.kernels == F32Kernels::kAvx512) {
    F32TileAvx512(t);
  } else if (p.trans_a) {
    F32TileAvx2<true>(t);
  } else {
    F32TileAvx2<false>(t);
  }
}

// `count` whole tiles side by side (kMr rows, 16 columns of a packed panel each, A not transposed), from t:
// tile j reads panel j and writes 16 columns on. The same micro-kernel as F32TileAvx2's, without its
// dispatch per tile (which cost as much as the tile itself for a K of 16).
PTQ_AVX2 void FullTilesAvx2(F32Tile t, int64_t count) {
  for (int64_t j = 0; j < count; ++j) {
    MicroKernel<kMr, 2, false, false>(t);
    t.b += t.panel_stride;
    t.c += kNr;
    if (t.col_bias != nullptr) t.col_bias += kNr;
    if (t.sum != nullptr) t.sum += kNr;
  }
}

// dst[k * 16 + i] = src[i * ld + k] for i, k < 8: an 8 x 8 transpose into a packed panel.
PTQ_AVX2 void Transpose8x8(const float* src, int64_t ld, float* dst) {
  __m256 r[8], t[8], u[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * ld);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);      // per 128-bit half: rows i, i+1 interleaved, k = 0, 1
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);  // k = 2, 3
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));          // rows i..i+3 at k = 0 | 4
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));      // k = 1 | 5
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));  // k = 2 | 6
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));  // k = 3 | 7
  }
  for (int k = 0; k < 4; ++k) {
    _mm256_storeu_ps(dst + k * kNr, _mm256_permute2f128_ps(u[k], u[k + 4], 0x20));
    _mm256_storeu_ps(dst + (k + 4) * kNr, _mm256_permute2f128_ps(u[k], u[k + 4], 0x31));
  }
}

// Packs panel `panel` of blk: dst[k * 16 + i] = B(k0 + k, n0 + i), zero for columns at or past N.
PTQ_AVX2 void PackPanel(const Problem& p, const Block& blk, int64_t panel) {
  const int64_t n0 = blk.n0 + panel * kNr;
  const int64_t cols = std::min(kNr, blk.n0 + blk.nc - n0);
  float* dst = blk.packed + (panel - blk.first_panel) * blk.kc * kNr;
  if (!p.trans_b) {  // B(k, n) = b[k * ldb + n]: rows of 16 contiguous floats
    const __m256i mask0 = FirstLanes(std::min<int64_t>(cols, 8));
    const __m256i mask1 = FirstLanes(std::max<int64_t>(cols - 8, 0));
    for (int64_t k = 0; k < blk.kc; ++k, dst += kNr) {
      const float* src = p.b_rows != nullptr ? p.b_rows[blk.k0 + k] + n0 : p.b + (blk.k0 + k) * p.ldb + n0;
      _mm256_storeu_ps(dst, cols >= 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, mask0));
      const __m256 high = cols >= kNr ? _mm256_loadu_ps(src + 8)
                          : cols > 8  ? _mm256_maskload_ps(src + 8, mask1)
                                      : _mm256_setzero_ps();  // no load at all: see gemm_f32_avx512.cc
      _mm256_storeu_ps(dst + 8, high);
    }
    return;
  }
  // B(k, n) = b[n * ldb + k]: transpose 8 columns x 8 k at a time, scalar at the edges.
  for (int64_t i0 = 0; i0 < kNr; i0 += 8) {
    const float* src = p.b + (n0 + i0) * p.ldb + blk.k0;
    int64_t k = 0;
    if (cols >= i0 + 8) {
      for (; k + 8 <= blk.kc; k += 8) Transpose8x8(src + k, p.ldb, dst + k * kNr + i0);
    }
    for (; k < blk.kc; ++k) {
      for (int64_t i = 0; i < 8; ++i) dst[k * kNr + i0 + i] = i0 + i < cols ? src[i * p.ldb + k] : 0.0f;
    }
  }
}

// A 64-byte aligned buffer of at least `floats` floats, owned by the calling thread and reused.
float* PackBuffer(int64_t floats) {
  thread_local std::vector<float> buffer;
  if (buffer.size() < static_cast<size_t>(floats + 16)) buffer.resize(static_cast<size_t>(floats + 16));
  const uintptr_t addr = reinterpret_cast<uintptr_t>(buffer.data());
  return reinterpret_cast<float*>((addr + 63) & ~uintptr_t{63});
}

// How threads share the product: share s takes slice s % tn of each N block's panel groups (tiles'
// column ranges) and slice s / tn of the row blocks.
struct Split {
  int tn, tm;
};

// The split into at most `shares` shares with the best speedup, counting whole tiles; among equals the
// one that splits N most: each share then packs only the panels it uses, and packs none twice.
Split ChooseSplit(int64_t groups, int64_t row_blocks, int shares) {
  Split best{1, 1};
  double best_speedup = 1.0;  // work / the largest share's work
  for (int tn = shares; tn >= 1; --tn) {
    const int tm = shares / tn;
    const double speedup = double(groups) / double((groups + tn - 1) / tn) * double(row_blocks) /
                           double((row_blocks + tm - 1) / tm);
    if (speedup > best_speedup) {
      best = {tn, tm};
      best_speedup = speedup;
    }
  }
  return best;
}

// C's lines of rows [m0, m1) and columns [c0, c1), prefetched for writing some row blocks before the first
// K block stores them: where C is not in cache (a large activation written once per run), the read of each
// line that a store needs then overlaps the tiles before, instead of stalling them (a 1x1 convolution of
// 16 to 96 channels at 112 x 112 with cold caches: 1.59 -> 1.14 ms).
constexpr int64_t kPrefetchRowBlocks = 2;
void PrefetchOutput(const Problem& p, int64_t m0, int64_t m1, int64_t c0, int64_t c1) {
  for (int64_t r = m0; r < m1; ++r) {
    for (int64_t c = c0; c < c1; c += 16) __builtin_prefetch(p.c + r * p.ldc + c, 1, 3);
  }
}

// Share `share` of the product, with no synchronisation: N blocks outer, K blocks (of a balanced size
// that depends on K alone) inner; in each block, pack the share's panels into the thread's own buffer,
// then compute its tiles row block by row block, so that A's rows stay in L1 across the panels.
void RunShare(const Problem& p, bool pack, Split split, int share) {
  const int64_t group = PanelsPerTile(p.kernels, p.M);
  const int64_t row_blocks = (p.M + kMr - 1) / kMr;
  const int64_t in = share % split.tn, im = share / split.tn;
  const int64_t rb0 = row_blocks * im / split.tm, rb1 = row_blocks * (im + 1) / split.tm;
  const int64_t kc = F32GemmKBlock(p.K);
  for (int64_t n0 = 0; n0 < p.N; n0 += kNc) {
    const int64_t nc = std::min(kNc, p.N - n0);
    const int64_t panels = (nc + kNr - 1) / kNr;
    const int64_t groups = (panels + group - 1) / group;
    const int64_t g0 = groups * in / split.tn, g1 = groups * (in + 1) / split.tn;
    const int64_t j0 = g0 * group, j1 = std::min(g1 * group, panels);
    if (j0 >= j1) continue;
    float* packed = pack && p.prepacked == nullptr ? PackBuffer(kc * (j1 - j0) * kNr) : nullptr;
    for (int64_t k0 = p.k_begin; k0 < p.k_end; k0 += kc) {
      // PackF32B's layout: N blocks one after the other, each its K blocks of all its panels.
      const Block blk = p.prepacked != nullptr
                            ? Block{n0, nc, k0, std::min(kc, p.K - k0), const_cast<float*>(p.prepacked) + n0 * p.K + k0 * panels * kNr, 0}
                            : Block{n0, nc, k0, std::min(kc, p.K - k0), packed, j0};
      for (int64_t j = j0; packed != nullptr && j < j1; ++j) PackPanel(p, blk, j);
      for (int64_t rb = rb0; rb < rb1; ++rb) {
        if (k0 == p.k_begin && rb + kPrefetchRowBlocks < rb1) {
          const int64_t ahead = (rb + kPrefetchRowBlocks) * kMr;
          PrefetchOutput(p, ahead, std::min(p.M, ahead + kMr), n0 + j0 * kNr, n0 + std::min(j1 * kNr, nc));
        }
        const int64_t m0 = rb * kMr, rows = std::min(kMr, p.M - m0);
        int64_t g = g0;
        if (rows == kMr && group == 1 && !p.trans_a && p.kernels == F32Kernels::kAvx2 && blk.packed != nullptr) {
          const int64_t full = std::min(g1, nc / kNr);  // panels of 16 columns
          if (full > g) FullTilesAvx2(MakeTile(p, blk, m0, rows, g, 1), full - g);
          g = std::max(g, full);
        }
        for (; g < g1; ++g) RunTile(p, blk, m0, rows, g * group, group);
      }
    }
  }
}

// Runs the product, B packed per call when `pack` (or prepacked), shared between threads when large.
void RunProblem(const Problem& p, bool pack) {
  const int64_t M = p.M, N = p.N;
  const F32Kernels kernels = p.kernels;
  const int64_t group = PanelsPerTile(kernels, M);
  const int64_t groups = ((std::min(kNc, N) + kNr - 1) / kNr + group - 1) / group;  // in a full N block
  const int64_t macs = M * N * (p.k_end - p.k_begin);
  const int threads = macs > kParallelMinMacs && !omp_in_parallel() ? omp_get_max_threads() : 1;
  const Split split = ChooseSplit(groups, (M + kMr - 1) / kMr, threads > 1 ? threads * kUnitsPerThread : 1);
  const int shares = split.tn * split.tm;
  if (shares == 1) {
    RunShare(p, pack, split, 0);
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::min(threads, shares))
  for (int s = 0; s < shares; ++s) RunShare(p, pack, split, s);
}

}  // namespace

void GemmF32Avx2(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc, F32Kernels kernels,
                 const GemmEpilogue<float>& epilogue, const float* const* b_rows) {
  const Problem p{trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, kernels, epilogue, b_rows, nullptr,
                  0, K};
  RunProblem(p, trans_b || b_rows != nullptr || (M > kInPlaceBMaxRows && K * N > kInPlaceBMaxFloats));
}

PackedF32B PackF32B(bool trans_b, int64_t K, int64_t N, const float* b, int64_t ldb) {
  PackedF32B packed;
  packed.K = K;
  packed.N = N;
  const int64_t kc = K == 0 ? 0 : F32GemmKBlock(K);
  const int64_t all_panels = (N + kNr - 1) / kNr;
  packed.data.resize(static_cast<size_t>(all_panels * kNr * K));
  const Problem p{false, trans_b, 0, N, K, 1.0f, nullptr, 0, b, ldb, 0.0f, nullptr, 0, F32Kernels::kAvx2, {},
                  nullptr, nullptr};
  for (int64_t n0 = 0; n0 < N; n0 += kNc) {
    const int64_t nc = std::min(kNc, N - n0);
    const int64_t panels = (nc + kNr - 1) / kNr;
    for (int64_t k0 = 0; k0 < K; k0 += kc) {
      const Block blk{n0, nc, k0, std::min(kc, K - k0), packed.data.data() + n0 * K + k0 * panels * kNr, 0};
      for (int64_t j = 0; j < panels; ++j) PackPanel(p, blk, j);
    }
  }
  return packed;
}

void GemmF32Avx2Packed(int64_t M, float alpha, const float* a, int64_t lda, const PackedF32B& b, float beta, float* c,
                       int64_t ldc, F32Kernels kernels, const GemmEpilogue<float>& epilogue, int64_t k_begin,
                       int64_t k_end) {
  const Problem p{false, false, M, b.N, b.K, alpha, a, lda, nullptr, 0, beta, c, ldc, kernels, epilogue, nullptr,
                  b.data.data(), k_begin, k_end < 0 ? b.K : k_end};
  RunProblem(p, true);
}


#else  // not x86-64: GetCpuFeatures().avx2_fma is always false, so this is never called.

void GemmF32Avx2(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*, int64_t, float,
                 float*, int64_t, F32Kernels, const GemmEpilogue<float>&, const float* const*) {
  std::abort();
}
PackedF32B PackF32B(bool, int64_t, int64_t, const float*, int64_t) { std::abort(); }
void GemmF32Avx2Packed(int64_t, float, const float*, int64_t, const PackedF32B&, float, float*, int64_t, F32Kernels,
                       const GemmEpilogue<float>&, int64_t, int64_t) {
  std::abort();
}

#endif

}  // namespace ptq
