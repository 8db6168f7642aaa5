// DepthwiseRow: 16 or 8 outputs per register, every tap accumulated before the one store (AVX-512, AVX2),
// or a portable loop.
#include "runtime/kernels/conv/depthwise_rows.h"

#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
// GCC 12 reports the deliberately undefined pass-through operand of its own AVX-512 intrinsics as maybe
// uninitialised once they are inlined here; it is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ptq {
namespace {

template <class T>
void RowPortable(const T* const* x, const T* w, int64_t taps, int64_t begin, int64_t n, T* y) {
  for (int64_t i = begin; i < n; ++i) {
    T s = y[i];
    for (int64_t t = 0; t < taps; ++t) s += w[t] * x[t][i];
    y[i] = s;
  }
}

#if defined(__x86_64__)
// Two registers of outputs at a time, then one, then a masked one.
__attribute__((target("avx512f"))) void RowAvx512(const float* const* x, const float* w, int64_t taps, int64_t n,
                                                  float* y) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    __m512 a0 = _mm512_loadu_ps(y + i), a1 = _mm512_loadu_ps(y + i + 16);
    for (int64_t t = 0; t < taps; ++t) {
      const __m512 wt = _mm512_set1_ps(w[t]);
      a0 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(x[t] + i), a0);
      a1 = _mm512_fmadd_ps(wt, _mm512_loadu_ps(x[t] + i + 16), a1);
    }
    _mm512_storeu_ps(y + i, a0);
    _mm512_storeu_ps(y + i + 16, a1);
  }
  for (; i < n; i += 16) {
    const __mmask16 mask = n - i >= 16 ? __mmask16(0xFFFF) : static_cast<__mmask16>((1u << (n - i)) - 1u);
    __m512 a = _mm512_maskz_loadu_ps(mask, y + i);
    for (int64_t t = 0; t < taps; ++t) a = _mm512_fmadd_ps(_mm512_set1_ps(w[t]), _mm512_maskz_loadu_ps(mask, x[t] + i), a);
    _mm512_mask_storeu_ps(y + i, mask, a);
  }
}

__attribute__((target("avx2,fma"))) void RowAvx2(const float* const* x, const float* w, int64_t taps, int64_t n,
                                                    float* y) {
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m256 a0 = _mm256_loadu_ps(y + i), a1 = _mm256_loadu_ps(y + i + 8);
    for (int64_t t = 0; t < taps; ++t) {
      const __m256 wt = _mm256_set1_ps(w[t]);
      a0 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(x[t] + i), a0);
      a1 = _mm256_fmadd_ps(wt, _mm256_loadu_ps(x[t] + i + 8), a1);
    }
    _mm256_storeu_ps(y + i, a0);
    _mm256_storeu_ps(y + i + 8, a1);
  }
  const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  for (; i < n; i += 8) {
    const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int32_t>(n - i < 8 ? n - i : 8)), lane);
    __m256 a = _mm256_maskload_ps(y + i, mask);
    for (int64_t t = 0; t < taps; ++t) {
      a = _mm256_fmadd_ps(_mm256_set1_ps(w[t]), _mm256_maskload_ps(x[t] + i, mask), a);
    }
    _mm256_maskstore_ps(y + i, mask, a);
  }
}

// Eight pairs at a time: shuffles pick the even and odd lanes of two registers, a permute puts them in order.
__attribute__((target("avx2"))) int64_t SplitPhases2Avx2(const float* src, int64_t n, float* even, float* odd) {
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m256 a = _mm256_loadu_ps(src + 2 * j), b = _mm256_loadu_ps(src + 2 * j + 8);
    const __m256 e = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0));  // a0 a2 b0 b2 | a4 a6 b4 b6
    const __m256 o = _mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1));
    _mm256_storeu_ps(even + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(e), _MM_SHUFFLE(3, 1, 2, 0))));
    _mm256_storeu_ps(odd + j, _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(o), _MM_SHUFFLE(3, 1, 2, 0))));
  }
  return j;
}
#endif

template <class T>
void SplitPhases2Portable(const T* src, int64_t begin, int64_t n, T* even, T* odd) {
  for (int64_t j = begin; j < n; ++j) {
    even[j] = src[2 * j];
    odd[j] = src[2 * j + 1];
  }
}

}  // namespace

void SplitPhases2(const float* src, int64_t n, float* even, float* odd) {
  int64_t done = 0;
#if defined(__x86_64__)
  if (GetCpuFeatures().avx2_fma) done = SplitPhases2Avx2(src, n, even, odd);
#endif
  SplitPhases2Portable(src, done, n, even, odd);
}

void SplitPhases2(const double* src, int64_t n, double* even, double* odd) {
  SplitPhases2Portable(src, 0, n, even, odd);
}

void DepthwiseRow(const float* const* x, const float* w, int64_t taps, int64_t n, float* y) {
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  if (cpu.avx512f) return RowAvx512(x, w, taps, n, y);
  if (cpu.avx2_fma) return RowAvx2(x, w, taps, n, y);
#endif
  RowPortable(x, w, taps, 0, n, y);
}

void DepthwiseRow(const double* const* x, const double* w, int64_t taps, int64_t n, double* y) {
  RowPortable(x, w, taps, 0, n, y);
}

}  // namespace ptq
