// Float32 GEMM for CPUs with AVX2 and FMA, optionally AVX-512F (per-function target attributes,
// chosen at run time).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/aligned_vector.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"

namespace ptq {

// The micro-kernels GemmF32Avx2 runs: tiles of up to 6 x 16 in ymm registers (AVX2+FMA), or of up to
// 6 x 32 in zmm registers (AVX-512F; packing still uses AVX2). Both give bit-identical results.
enum class F32Kernels { kAvx2, kAvx512 };

// kAvx512 when GetCpuFeatures().avx512f, else kAvx2.
F32Kernels BestF32Kernels();

// C = alpha * op(A) * op(B) + beta * C, with the layout contract of RowMajorGemm (row_major_gemm.h):
// A is [M, K] (or [K, M] when trans_a) with row stride lda, B is [K, N] (or [N, K] when trans_b) with
// row stride ldb, C is [M, N] with row stride ldc; beta == 0 never reads C (NaN included).
// Every C element is computed by the same operations whatever M, the thread count, the kernels, or
// the element's place in a tile: for each K block of fixed size (a function of K alone), acc = 0 and
// then acc = fma(A(m, k), B(k, n), acc) for k increasing; the first block stores alpha * acc +
// beta * C (as fma(beta, C, alpha * acc); alpha * acc when beta == 0), each later block
// fma(alpha, acc, C). So a row's result does not depend on which other rows share the call.
// With b_rows (trans_b false), B's row k is read at b_rows[k] instead of b + k * ldb (rows anywhere:
// the shifted views of a padded image that a convolution's im2col would copy).
// `epilogue` (gemm_epilogue.h) is applied to every element in the first (bias) and last (clamp) K block.
// Runs on OpenMP threads (omp_get_max_threads) when M * N * K > 2^20.
// REQUIRES: GetCpuFeatures().avx2_fma, and .avx512f for kAvx512 (x86-64 only: elsewhere this aborts);
// M, N, K > 0; C does not overlap A or B.
void GemmF32Avx2(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, float alpha, const float* a,
                 int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc,
                 F32Kernels kernels = BestF32Kernels(), const GemmEpilogue<float>& epilogue = {},
                 const float* const* b_rows = nullptr);

// B packed once (a constant weight), in the layout GemmF32Avx2 packs it into on every call: the 16-column
// panels of every (N block, K block). Results of GemmF32Avx2Packed equal GemmF32Avx2's bit for bit.
struct PackedF32B {
  int64_t K = 0, N = 0;
  AlignedVector<float> data;  // cache-line aligned: a panel row of 16 floats is one line
};

// B is [K, N] (or [N, K] when trans_b) with row stride ldb.
// REQUIRES: GetCpuFeatures().avx2_fma (x86-64 only: elsewhere this aborts).
PackedF32B PackF32B(bool trans_b, int64_t K, int64_t N, const float* b, int64_t ldb);

// GemmF32Avx2(trans_a false, trans_b as packed, M, b.N, b.K, ...) on the packed B; or, with k_end >= 0, only
// the K blocks of that product lying in [k_begin, k_end) (both multiples of F32GemmKBlock(b.K), or k_end ==
// b.K), A's columns [k_begin, k_end) being a[m * lda + k - k_begin]: the first block of the product (k_begin
// == 0) stores with beta and the bias, later ones add to C, and the last (k_end == b.K) applies the residual
// and the clamp. Calls over consecutive ranges covering [0, b.K) give the bits of one call, so that a large
// A can be built a slice of columns at a time while B is read once per slice.
// REQUIRES: as GemmF32Avx2; M > 0, b.K > 0, b.N > 0.
void GemmF32Avx2Packed(int64_t M, float alpha, const float* a, int64_t lda, const PackedF32B& b, float beta, float* c,
                       int64_t ldc, F32Kernels kernels = BestF32Kernels(), const GemmEpilogue<float>& epilogue = {},
                       int64_t k_begin = 0, int64_t k_end = -1);

// The K block size of GemmF32Avx2 for products of depth K (a function of K alone, at most 256).
int64_t F32GemmKBlock(int64_t K);

// Panel `panel` (columns 16 panel .. 16 panel + 15) of b's K block starting at k0 (a multiple of
// F32GemmKBlock(b.K)): B(k0 + k, 16 panel + i) = result[k * 16 + i] for k < that block's depth, i < 16.
const float* PackedF32Panel(const PackedF32B& b, int64_t panel, int64_t k0);

}  // namespace ptq
