// CenterBytes: 16 (AVX-512) or 8 (AVX2) bytes widened, the zero point subtracted in int32, converted; a loop for
// the rest.
#include "runtime/kernels/vector/center_bytes.h"

#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 and its AVX-512 pass-through operands
#endif

namespace ptq {
namespace {

void CenterScalar(const uint8_t* x, bool x_signed, int32_t x_zero_point, int64_t begin, int64_t n, float* dst) {
  for (int64_t i = begin; i < n; ++i) {
    const int32_t v = x_signed ? static_cast<int8_t>(x[i]) : x[i];
    dst[i] = static_cast<float>(v - x_zero_point);
  }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) int64_t CenterAvx512(const uint8_t* x, bool x_signed, int32_t x_zero_point,
                                                        int64_t n, float* dst) {
  const __m512i zp = _mm512_set1_epi32(x_zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(x + i));
    const __m512i v = x_signed ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
    _mm512_storeu_ps(dst + i, _mm512_cvtepi32_ps(_mm512_sub_epi32(v, zp)));
  }
  return i;
}

__attribute__((target("avx2"))) int64_t CenterAvx2(const uint8_t* x, bool x_signed, int32_t x_zero_point, int64_t n,
                                                   float* dst) {
  const __m256i zp = _mm256_set1_epi32(x_zero_point);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i b = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(x + i));
    const __m256i v = x_signed ? _mm256_cvtepi8_epi32(b) : _mm256_cvtepu8_epi32(b);
    _mm256_storeu_ps(dst + i, _mm256_cvtepi32_ps(_mm256_sub_epi32(v, zp)));
  }
  return i;
}
#endif

}  // namespace

void CenterBytes(const uint8_t* x, bool x_signed, int32_t x_zero_point, int64_t n, float* dst) {
  int64_t done = 0;
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  if (cpu.avx512f) {
    done = CenterAvx512(x, x_signed, x_zero_point, n, dst);
  } else if (cpu.avx2_fma) {
    done = CenterAvx2(x, x_signed, x_zero_point, n, dst);
  }
#endif
  CenterScalar(x, x_signed, x_zero_point, done, n, dst);
}

}  // namespace ptq
