// One register tile's work in the float32 GEMM (gemm_f32_avx2.cc), as handed to a micro-kernel.
#pragma once

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ptq {

constexpr int64_t kF32TileRows = 6;    // rows of every register tile (fewer at the M edge)
constexpr int64_t kF32PanelCols = 16;  // columns of a packed B panel; tiles span whole panels

// C(r, n) for r < rows, n < cols, over one K block of kc: acc = 0, then acc = fma(A(r, k), B(k, n), acc)
// for k = 0, 1, ..., kc - 1; then, in the first K block, C = alpha * acc, or fma(beta, C, alpha * acc)
// when beta != 0 (beta == 0 never reads C), and in later blocks C = fma(alpha, acc, C). Every micro-
// kernel, of whatever width or instruction set, does exactly this per element (and the epilogue
// below), so results are bit-identical whichever kernel computes an element.
struct F32Tile {
  const float* a;  // A(r, k) = a[r * lda + k], or a[k * lda + r] when trans_a
  int64_t lda;
  bool trans_a;
  const float* b;  // B(k, 16j + i) = b[k * b_stride + j * panel_stride + i], i < 16
  int64_t b_stride;
  int64_t panel_stride;
  bool b_padded;  // every panel the tile touches holds 16 readable columns (packed B); else only `cols`
  float* c;       // C(r, n) = c[r * ldc + n]
  int64_t ldc;
  int64_t kc;
  int64_t rows;  // 1 .. kF32TileRows
  int64_t cols;  // 1 .. the kernel's width
  float alpha, beta;
  bool first;  // first K block
  // GemmEpilogue: in the first block, + row_bias[r], then + col_bias[n], after alpha * acc (beta == 0;
  // nullptr: none); in the last block, when clamp, the Clip of [lo, hi].
  const float* row_bias;
  const float* col_bias;  // col_bias[n] for the tile's columns n < cols
  // In the last block, + sum[r * ld_sum + n] before the clamp (nullptr: none).
  const float* sum;
  int64_t ld_sum;
  bool last;  // last K block
  bool clamp;
  float lo, hi;
  // Lines for tiles to come, prefetched while this one computes (nullptr: none). The kernel prefetches
  // c_prefetch's lines of its rows and columns (C(r, n) at c_prefetch[r * ldc + n]) before its K loop, and
  // a_prefetch's (A not transposed: row r's columns at a_prefetch + r * lda) into L2 during it, a line of
  // each row every 16 k, so that an A streamed from memory arrives before the next row block reads it.
  const float* a_prefetch = nullptr;
  const float* c_prefetch = nullptr;
  // sum_prefetch's lines likewise (sum_prefetch[r * ld_sum + n]), for the residual of a tile to come.
  const float* sum_prefetch = nullptr;
  // The panels of the tile to come, laid out as b's (the same panel_stride and b_stride), prefetched into L2 a
  // row of k at a time during the K loop: the first row block of a product reads the packed weights from memory
  // (weights of MiBs, read once per run), and stalled on them line by line. ResNet-50's layer4 1x1 and 3x3
  // convolutions with cold caches: 1.41 -> 1.24 and 3.10 -> 2.71 ms (`ptq_gemm_f32_bench ... cold`).
  const float* b_prefetch = nullptr;
};

#if defined(__x86_64__)
// An AVX2 mask enabling the first n of 8 lanes (0 <= n <= 8), for masked loads and stores of a short row.
__attribute__((target("avx2,fma"))) inline __m256i F32FirstLanes(int64_t n) {
  alignas(64) static const int32_t kLaneMask[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kLaneMask + 8 - n));
}
#endif

// The tile with ymm registers (AVX2+FMA): rows x 16 columns, or 1 x 64 and 2 x 32 when full; an unpadded B
// (b_padded false) is read only in its first t.cols columns (gemm_f32_avx2_tile.cc).
// REQUIRES: GetCpuFeatures().avx2_fma; x86-64 builds only.
void F32TileAvx2(const F32Tile& t);
// `count` whole tiles side by side from t (kF32TileRows rows, 16 columns of a padded panel each, A not
// transposed): tile j reads panel j (t.b + j * t.panel_stride) and writes 16 j columns on (c, col_bias, sum,
// and c_prefetch and sum_prefetch likewise); only the first tile prefetches a_prefetch's lines.
// The same micro-kernel as F32TileAvx2's, without its dispatch per tile.
void F32FullTilesAvx2(const F32Tile& t, int64_t count);

// The tile with zmm registers (AVX-512F): rows x 32 columns, or rows x 128 for rows == 1 and x 64 for
// rows == 2 (wide enough for 8 independent FMA chains), fewer columns at the N edge.
// REQUIRES: GetCpuFeatures().avx512f; x86-64 builds only.
void F32TileAvx512(const F32Tile& t);

}  // namespace ptq
