// Row-major GEMM: the AVX2 kernel for float32 when the CPU has it, else Eigen maps over the callers'
// buffers for floating types; a plain loop for integers.
#include "runtime/kernels/gemm_f32/row_major_gemm.h"

#include <algorithm>

#include <Eigen/Core>
#include <type_traits>

#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

namespace ptq {
namespace {

template <class T, int Order>
using ConstMatrixMap =
    Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Order>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T>
using RowMajorMap = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>, Eigen::Unaligned,
                               Eigen::OuterStride<>>;

// c = alpha * a * b + beta * c for Eigen expressions a [M, K] and b [K, N].
template <class T, class A, class B>
void EigenProduct(const A& a, const B& b, T alpha, T beta, RowMajorMap<T>& c) {
  if (beta == T(0)) {
    c.noalias() = alpha * a * b;
  } else {
    if (beta != T(1)) c *= beta;
    c.noalias() += alpha * a * b;
  }
}

// A stored [M, K] row-major is an [M, K] row-major map; stored [K, M] row-major it is an [M, K]
// column-major map with the same stride.
template <class T, class B>
void WithA(bool trans_a, int64_t M, int64_t K, const T* a, int64_t lda, const B& b, T alpha, T beta,
           RowMajorMap<T>& c) {
  if (trans_a) {
    EigenProduct(ConstMatrixMap<T, Eigen::ColMajor>(a, M, K, Eigen::OuterStride<>(lda)), b, alpha, beta, c);
  } else {
    EigenProduct(ConstMatrixMap<T, Eigen::RowMajor>(a, M, K, Eigen::OuterStride<>(lda)), b, alpha, beta, c);
  }
}

template <class T>
void EigenGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda,
               const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  RowMajorMap<T> cm(c, M, N, Eigen::OuterStride<>(ldc));
  if (trans_b) {
    WithA(trans_a, M, K, a, lda, ConstMatrixMap<T, Eigen::ColMajor>(b, K, N, Eigen::OuterStride<>(ldb)), alpha, beta,
          cm);
  } else {
    WithA(trans_a, M, K, a, lda, ConstMatrixMap<T, Eigen::RowMajor>(b, K, N, Eigen::OuterStride<>(ldb)), alpha, beta,
          cm);
  }
}

// c[m][n] = alpha * sum_k a(m, k) * b(k, n) + beta * c[m][n] in T's unsigned counterpart (wraps).
template <class T>
void LoopGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda, const T* b,
              int64_t ldb, T beta, T* c, int64_t ldc) {
  using U = std::make_unsigned_t<T>;
  for (int64_t m = 0; m < M; ++m) {
    U* crow = reinterpret_cast<U*>(c + m * ldc);
    for (int64_t n = 0; n < N; ++n) crow[n] = beta == T(0) ? U(0) : U(beta) * crow[n];
    for (int64_t k = 0; k < K; ++k) {
      const U av = U(alpha) * U(trans_a ? a[k * lda + m] : a[m * lda + k]);
      if (trans_b) {
        for (int64_t n = 0; n < N; ++n) crow[n] += av * U(b[n * ldb + k]);
      } else {
        const T* brow = b + k * ldb;
        for (int64_t n = 0; n < N; ++n) crow[n] += av * U(brow[n]);
      }
    }
  }
}

}  // namespace

template <class T>
void RowMajorGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (M <= 0 || N <= 0) return;
  if (K <= 0) {  // empty sum: C = beta * C
    for (int64_t m = 0; m < M; ++m) {
      for (int64_t n = 0; n < N; ++n) c[m * ldc + n] = beta == T(0) ? T(0) : beta * c[m * ldc + n];
    }
    return;
  }
  if constexpr (std::is_same<T, float>::value) {
    if (GetCpuFeatures().avx2_fma) {
      GemmF32Avx2(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
  }
  if constexpr (std::is_floating_point<T>::value) {
    EigenGemm(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
  } else {
    LoopGemm(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
  }
}

template <class T>
void RowMajorGemm(bool trans_a, bool trans_b, int64_t M, int64_t N, int64_t K, T alpha, const T* a, int64_t lda,
                  const T* b, int64_t ldb, T beta, T* c, int64_t ldc, const GemmEpilogue<T>& epilogue) {
  if (M <= 0 || N <= 0) return;
  if constexpr (std::is_same<T, float>::value) {
    if (K > 0 && GetCpuFeatures().avx2_fma) {
      GemmF32Avx2(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, BestF32Kernels(), epilogue);
      return;
    }
  }
  RowMajorGemm(trans_a, trans_b, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc);
  for (int64_t m = 0; m < M; ++m) {
    T* row = c + m * ldc;
    if (epilogue.row_bias) {
      const T bias = epilogue.row_bias[m];
      for (int64_t n = 0; n < N; ++n) row[n] += bias;
    }
    if (epilogue.col_bias) {
      for (int64_t n = 0; n < N; ++n) row[n] += epilogue.col_bias[n];
    }
    if (epilogue.sum) {
      const T* add = epilogue.sum + m * epilogue.ld_sum;
      for (int64_t n = 0; n < N; ++n) row[n] += add[n];
    }
    if (epilogue.clamp) {
      for (int64_t n = 0; n < N; ++n) {
        const T v = row[n] < epilogue.lo ? epilogue.lo : row[n];
        row[n] = epilogue.hi < v ? epilogue.hi : v;
      }
    }
  }
}

template <class T>
void RowMajorGemmRows(int64_t M, int64_t N, int64_t K, const T* a, int64_t lda, const T* const* b_rows, T* c,
                      int64_t ldc, const GemmEpilogue<T>& epilogue, std::vector<T>& scratch) {
  if (M <= 0 || N <= 0) return;
  if constexpr (std::is_same<T, float>::value) {
    if (K > 0 && GetCpuFeatures().avx2_fma) {
      GemmF32Avx2(false, false, M, N, K, 1.0f, a, lda, nullptr, N, 0.0f, c, ldc, BestF32Kernels(), epilogue, b_rows);
      return;
    }
  }
  scratch.resize(static_cast<size_t>(K * N));
  for (int64_t k = 0; k < K; ++k) std::copy(b_rows[k], b_rows[k] + N, scratch.begin() + k * N);
  RowMajorGemm(false, false, M, N, K, T(1), a, lda, scratch.data(), N, T(0), c, ldc, epilogue);
}

template void RowMajorGemmRows<float>(int64_t, int64_t, int64_t, const float*, int64_t, const float* const*, float*,
                                      int64_t, const GemmEpilogue<float>&, std::vector<float>&);
template void RowMajorGemmRows<double>(int64_t, int64_t, int64_t, const double*, int64_t, const double* const*,
                                       double*, int64_t, const GemmEpilogue<double>&, std::vector<double>&);
template void RowMajorGemm<float>(bool, bool, int64_t, int64_t, int64_t, float, const float*, int64_t, const float*,
                                  int64_t, float, float*, int64_t, const GemmEpilogue<float>&);
template void RowMajorGemm<double>(bool, bool, int64_t, int64_t, int64_t, double, const double*, int64_t,
                                   const double*, int64_t, double, double*, int64_t, const GemmEpilogue<double>&);

#define PTQ_INSTANTIATE_GEMM(T)                                                                                        \
  template void RowMajorGemm<T>(bool, bool, int64_t, int64_t, int64_t, T, const T*, int64_t, const T*, int64_t, T, T*, \
                                int64_t);
PTQ_INSTANTIATE_GEMM(float)
PTQ_INSTANTIATE_GEMM(double)
PTQ_INSTANTIATE_GEMM(int32_t)
PTQ_INSTANTIATE_GEMM(int64_t)
PTQ_INSTANTIATE_GEMM(uint32_t)
PTQ_INSTANTIATE_GEMM(uint64_t)
#undef PTQ_INSTANTIATE_GEMM

}  // namespace ptq
