// DepthwiseTapsF32: 16 (AVX-512) or 8 (AVX2) channels per register, every tap
// accumulated before the one store; a portable loop for the rest.
#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/depthwise_nhwc.h"

#if defined(__x86_64__)
#include <immintrin.h>
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 and its AVX-512 pass-through operands
#endif

namespace ptq {
namespace {

void TapsF32Portable(const float* const* x, const float* w, int64_t taps, int64_t M, int64_t begin, float* acc) {
  for (int64_t m = begin; m < M; ++m) {
    float s = acc[m];
    for (int64_t t = 0; t < taps; ++t) s += w[t * M + m] * x[t][m];
    acc[m] = s;
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) int64_t TapsF32Avx512(const float* const* x, const float* w, int64_t taps,
                                                          int64_t M, float* acc) {
  int64_t m = 0;
  for (; m + 32 <= M; m += 32) {
    __m512 a0 = _mm512_loadu_ps(acc + m), a1 = _mm512_loadu_ps(acc + m + 16);
    for (int64_t t = 0; t < taps; ++t) {
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(w + t * M + m), _mm512_loadu_ps(x[t] + m), a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(w + t * M + m + 16), _mm512_loadu_ps(x[t] + m + 16), a1);
    }
    _mm512_storeu_ps(acc + m, a0);
    _mm512_storeu_ps(acc + m + 16, a1);
  }
  for (; m + 16 <= M; m += 16) {
    __m512 a = _mm512_loadu_ps(acc + m);
    for (int64_t t = 0; t < taps; ++t) a = _mm512_fmadd_ps(_mm512_loadu_ps(w + t * M + m), _mm512_loadu_ps(x[t] + m), a);
    _mm512_storeu_ps(acc + m, a);
  }
  return m;
}

__attribute__((target("avx2,fma"))) int64_t TapsF32Avx2(const float* const* x, const float* w, int64_t taps,
                                                         int64_t M, float* acc) {
  int64_t m = 0;
  for (; m + 16 <= M; m += 16) {
    __m256 a0 = _mm256_loadu_ps(acc + m), a1 = _mm256_loadu_ps(acc + m + 8);
    for (int64_t t = 0; t < taps; ++t) {
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w + t * M + m), _mm256_loadu_ps(x[t] + m), a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(w + t * M + m + 8), _mm256_loadu_ps(x[t] + m + 8), a1);
    }
    _mm256_storeu_ps(acc + m, a0);
    _mm256_storeu_ps(acc + m + 8, a1);
  }
  for (; m + 8 <= M; m += 8) {
    __m256 a = _mm256_loadu_ps(acc + m);
    for (int64_t t = 0; t < taps; ++t) a = _mm256_fmadd_ps(_mm256_loadu_ps(w + t * M + m), _mm256_loadu_ps(x[t] + m), a);
    _mm256_storeu_ps(acc + m, a);
  }
  return m;
}
#endif

// The channels left after the vector blocks, with FMA when the vector path used it (the same rounding).
#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) void TapsF32TailFma(const float* const* x, const float* w, int64_t taps, int64_t M,
                                                         int64_t begin, float* acc) {
  for (int64_t m = begin; m < M; ++m) {
    float s = acc[m];
    for (int64_t t = 0; t < taps; ++t) s = __builtin_fmaf(w[t * M + m], x[t][m], s);
    acc[m] = s;
  }
}
#endif

}  // namespace

void DepthwiseTapsF32(const float* const* x, const float* w, int64_t taps, int64_t M, float* acc) {
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  if (cpu.avx512f || cpu.avx2_fma) {
    const int64_t done = cpu.avx512f ? TapsF32Avx512(x, w, taps, M, acc) : TapsF32Avx2(x, w, taps, M, acc);
    TapsF32TailFma(x, w, taps, M, done, acc);
    return;
  }
#endif
  TapsF32Portable(x, w, taps, M, 0, acc);
}

}  // namespace ptq
