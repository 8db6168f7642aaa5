// One matrix product over row-major buffers, shared by MatMul, Gemm, Conv, ConvTranspose and Einsum:
// float by ptq's AVX2/AVX-512 kernels where the CPU has them (gemm_f32_avx2.h), else Eigen.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/gemm_f32/gemm_epilogue.h"

namespace ptq {

// C = alpha * op(A) * op(B) + beta * C, with op(X) = X, or X^T when trans_x.
// A is stored [M, K] (or [K, M] when trans_a) with row stride lda; B is stored [K, N] (or [N, K] when
// trans_b) with row stride ldb; C is [M, N] with row stride ldc. Operands are read in place (the
// float kernels pack panels of B into per-thread buffers). beta == 0 ignores C's contents (NaN
// included). Float results of a row do not depend on M or the thread count (gemm_f32_avx2.h).
// T is float or double (Eigen), or int32_t, int64_t, uint32_t, uint64_t (plain loops, wrapping
// arithmetic). REQUIRES: C does not overlap A or B.
template <class T>
void RowMajorGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

// The same followed by `epilogue` (gemm_epilogue.h): a per-row bias and a clamp. T is float or double.
// REQUIRES: beta == 0 when epilogue.row_bias is set.
template <class T>
void RowMajorGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc, const GemmEpilogue<T>& epilogue);

// C = A [M, K] (row stride lda) * B + epilogue, B's row k being the N values at b_rows[k]; beta = 0,
// alpha = 1. Float32 reads the rows in place (packing them); other paths copy B first into `scratch`.
template <class T>
void RowMajorGemmRows(int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* const* b_rows, T* c,
                      int64_t ldc, const GemmEpilogue<T>& epilogue, std::vector<T>& scratch);

}  // namespace ptq
