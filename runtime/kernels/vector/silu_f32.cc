// SiluF32Avx2 and SiluF32Avx512: VecExp's range reduction, polynomial and scaling written with AVX2 or AVX-512
// intrinsics.
#include "runtime/kernels/vector/silu_f32.h"

#include <cstdint>
#include <cstdlib>

#include "runtime/kernels/vector/vector_math.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define PTQ_AVX2 __attribute__((target("avx2,fma")))
#define PTQ_AVX512 __attribute__((target("avx512f")))
#endif

namespace ptq {

#if defined(__x86_64__)
namespace {

// VecExp's polynomial in r, highest degree first: p = kExpPoly[0], then p = fma(p, r, kExpPoly[i]).
constexpr int kExpTerms = 6;
constexpr float kExpPoly[kExpTerms] = {1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f,
                                       4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f};

// VecExp(v), operation for operation: the clamp to [-104, 89] (NaN to -104), n = round(v / ln 2) by the
// magic constant, r by the two-part ln 2, the polynomial by fused multiply-adds where VecExp has std::fma,
// 2^n as two factors, and a NaN v given back.
PTQ_AVX2 inline __m256 Exp(__m256 v) {
  // lo < v ? v : lo is vmaxps(v, lo); hi < c ? hi : c is vminps(hi, c).
  const __m256 c = _mm256_min_ps(_mm256_set1_ps(89.0f), _mm256_max_ps(v, _mm256_set1_ps(-104.0f)));
  const __m256 magic = _mm256_set1_ps(12582912.0f);
  const __m256 n = _mm256_sub_ps(_mm256_fmadd_ps(c, _mm256_set1_ps(1.44269504088896341f), magic), magic);
  // fnmadd(a, b, c) = -(a * b) + c, one rounding: std::fma(-a, b, c).
  const __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(-2.12194440e-4f),
                                    _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693359375f), c));
  const __m256 z = _mm256_mul_ps(r, r);
  __m256 p = _mm256_set1_ps(kExpPoly[0]);
#pragma GCC unroll 8
  for (int i = 1; i < kExpTerms; ++i) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(kExpPoly[i]));
  p = _mm256_add_ps(_mm256_fmadd_ps(p, z, r), _mm256_set1_ps(1.0f));
  const __m256i ni = _mm256_cvttps_epi32(n);
  const __m256i n1 = _mm256_srai_epi32(ni, 1);
  const __m256i n2 = _mm256_sub_epi32(ni, n1);
  const __m256i bias = _mm256_set1_epi32(127);
  const __m256 s1 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n1, bias), 23));
  const __m256 s2 = _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(n2, bias), 23));
  const __m256 y = _mm256_mul_ps(_mm256_mul_ps(p, s1), s2);
  return _mm256_blendv_ps(y, v, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

// x * (1 / (1 + VecExp(-x))).
PTQ_AVX2 inline __m256 Silu(__m256 x) {
  const __m256 one = _mm256_set1_ps(1.0f);
  const __m256 minus_x = _mm256_xor_ps(x, _mm256_set1_ps(-0.0f));
  return _mm256_mul_ps(x, _mm256_div_ps(one, _mm256_add_ps(one, Exp(minus_x))));
}

PTQ_AVX2 void SiluAvx2(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256 a = _mm256_loadu_ps(x + i), b = _mm256_loadu_ps(x + i + 8);
    const __m256 c = _mm256_loadu_ps(x + i + 16), d = _mm256_loadu_ps(x + i + 24);
    _mm256_storeu_ps(y + i, Silu(a));
    _mm256_storeu_ps(y + i + 8, Silu(b));
    _mm256_storeu_ps(y + i + 16, Silu(c));
    _mm256_storeu_ps(y + i + 24, Silu(d));
  }
  for (; i + 8 <= n; i += 8) _mm256_storeu_ps(y + i, Silu(_mm256_loadu_ps(x + i)));
  for (; i < n; ++i) y[i] = x[i] * VecSigmoid(x[i]);
}

// Exp's operations in zmm registers, but 2^n by vscalefps: p * 2^n with one rounding, the bits of p * s1 * s2
// (p * s1 is exact, as s1 = 2^n1 keeps it normal: n1 >= -75 and p >= 0.7).
// (The _mask_ forms with every lane on: GCC 12's plain _mm512_max_ps, _min_ps and _scalef_ps pass an undefined
// vector that -Wmaybe-uninitialized reports.)
PTQ_AVX512 inline __m512 Exp512(__m512 v) {
  constexpr __mmask16 kAll = 0xFFFF;
  const __m512 lo = _mm512_set1_ps(-104.0f), hi = _mm512_set1_ps(89.0f);
  const __m512 c = _mm512_mask_min_ps(hi, kAll, hi, _mm512_mask_max_ps(lo, kAll, v, lo));
  const __m512 magic = _mm512_set1_ps(12582912.0f);
  const __m512 n = _mm512_sub_ps(_mm512_fmadd_ps(c, _mm512_set1_ps(1.44269504088896341f), magic), magic);
  const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(-2.12194440e-4f),
                                    _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693359375f), c));
  const __m512 z = _mm512_mul_ps(r, r);
  __m512 p = _mm512_set1_ps(kExpPoly[0]);
#pragma GCC unroll 8
  for (int i = 1; i < kExpTerms; ++i) p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(kExpPoly[i]));
  p = _mm512_add_ps(_mm512_fmadd_ps(p, z, r), _mm512_set1_ps(1.0f));
  const __m512 y = _mm512_mask_scalef_ps(p, kAll, p, n);
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), y, v);
}

PTQ_AVX512 inline __m512 Silu512(__m512 x) {
  const __m512 one = _mm512_set1_ps(1.0f);
  const __m512 minus_x = _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(x), _mm512_set1_epi32(INT32_MIN)));
  return _mm512_mul_ps(x, _mm512_div_ps(one, _mm512_add_ps(one, Exp512(minus_x))));
}

PTQ_AVX512 void SiluAvx512(const float* x, float* y, int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 a = _mm512_loadu_ps(x + i), b = _mm512_loadu_ps(x + i + 16);
    _mm512_storeu_ps(y + i, Silu512(a));
    _mm512_storeu_ps(y + i + 16, Silu512(b));
  }
  for (; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (n - i)) - 1u);
    _mm512_mask_storeu_ps(y + i, m, Silu512(_mm512_maskz_loadu_ps(m, x + i)));
  }
}

}  // namespace

void SiluF32Avx2(const float* x, float* y, int64_t n) { SiluAvx2(x, y, n); }
void SiluF32Avx512(const float* x, float* y, int64_t n) { SiluAvx512(x, y, n); }

#else  // not x86-64: callers check GetCpuFeatures().avx2_fma, always false here.

void SiluF32Avx2(const float*, float*, int64_t) { std::abort(); }
void SiluF32Avx512(const float*, float*, int64_t) { std::abort(); }

#endif

}  // namespace ptq
