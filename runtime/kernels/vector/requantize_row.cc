// RequantizeRow: AVX-512 and AVX2 loops with the scalar RequantizeValue for tails and other CPUs.
#include "runtime/kernels/vector/requantize_row.h"

#include <cstring>

#include "runtime/cpu_features.h"
#include "runtime/quant_math.h"

#if defined(__x86_64__)
#include <immintrin.h>
// GCC 12 reports the deliberately undefined pass-through operand of its own AVX-512 intrinsics as maybe
// uninitialised once they are inlined here; it is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

namespace ptq {
namespace {

int32_t WrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
int32_t WrapAdd(float a, int32_t b) { return WrapAdd(static_cast<int32_t>(a), b); }

// Elements [begin, n) one at a time.
template <class Acc>
void RequantizeScalar(const Acc* acc, int64_t begin, int64_t n, int32_t bias, float multiplier,
                      int32_t y_zero_point, Int8Output type, void* out) {
  if (type == Int8Output::kInt32) {
    auto* o = static_cast<int32_t*>(out);
    for (int64_t i = begin; i < n; ++i) o[i] = WrapAdd(acc[i], bias);
    return;
  }
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  auto* o = static_cast<uint8_t*>(out);
  for (int64_t i = begin; i < n; ++i) {
    o[i] = static_cast<uint8_t>(RequantizeValue(WrapAdd(acc[i], bias), multiplier, y_zero_point, qmin, qmax));
  }
}

#if defined(__x86_64__)
// The clamp bounds in float, as RequantizeValue takes them; max(v, lo) gives lo for NaN (qmin).
__attribute__((target("avx512f"))) inline __m512i Load16(const int32_t* p) { return _mm512_loadu_si512(p); }
__attribute__((target("avx512f"))) inline __m512i Load16(const float* p) {
  return _mm512_cvtps_epi32(_mm512_loadu_ps(p));
}
__attribute__((target("avx2"))) inline __m256i Load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
__attribute__((target("avx2"))) inline __m256i Load8(const float* p) { return _mm256_cvtps_epi32(_mm256_loadu_ps(p)); }

template <class Acc>
__attribute__((target("avx512f"))) int64_t RequantizeAvx512(const Acc* acc, int64_t n, int32_t bias,
                                                              float multiplier, int32_t y_zero_point, Int8Output type,
                                                              void* out) {
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  const __m512i b = _mm512_set1_epi32(bias);
  const __m512 m = _mm512_set1_ps(multiplier);
  const __m512 lo = _mm512_set1_ps(static_cast<float>(qmin - y_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(qmax - y_zero_point));
  const __m512i zp = _mm512_set1_epi32(y_zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i a = _mm512_add_epi32(Load16(acc + i), b);
    if (type == Int8Output::kInt32) {
      _mm512_storeu_si512(static_cast<int32_t*>(out) + i, a);
      continue;
    }
    __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(a), m);
    v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);
    const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), zp);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + i), _mm512_cvtepi32_epi8(q));
  }
  return i;
}

template <class Acc>
__attribute__((target("avx2"))) int64_t RequantizeAvx2(const Acc* acc, int64_t n, int32_t bias, float multiplier,
                                                        int32_t y_zero_point, Int8Output type, void* out) {
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  const __m256i b = _mm256_set1_epi32(bias);
  const __m256 m = _mm256_set1_ps(multiplier);
  const __m256 lo = _mm256_set1_ps(static_cast<float>(qmin - y_zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(qmax - y_zero_point));
  const __m256i zp = _mm256_set1_epi32(y_zero_point);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i a = _mm256_add_epi32(Load8(acc + i), b);
    if (type == Int8Output::kInt32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<int32_t*>(out) + i), a);
      continue;
    }
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), m);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);  // max(v, lo) is lo for NaN (the second operand)
    const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
    // Every q is within the 8-bit type's range: the low byte of each lane is the result.
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), q);
    auto* o = static_cast<uint8_t*>(out) + i;
    for (int k = 0; k < 8; ++k) o[k] = static_cast<uint8_t>(lanes[k]);
  }
  return i;
}
#endif

template <class Acc>
void Requantize(const Acc* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point, Int8Output type,
                void* out) {
  int64_t done = 0;
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  if (cpu.avx512f) {
    done = RequantizeAvx512(acc, n, bias, multiplier, y_zero_point, type, out);
  } else if (cpu.avx2_fma) {
    done = RequantizeAvx2(acc, n, bias, multiplier, y_zero_point, type, out);
  }
#endif
  RequantizeScalar(acc, done, n, bias, multiplier, y_zero_point, type, out);
}

}  // namespace

void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out) {
  Requantize(acc, n, bias, multiplier, y_zero_point, type, out);
}

void RequantizeRow(const float* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out) {
  Requantize(acc, n, bias, multiplier, y_zero_point, type, out);
}

}  // namespace ptq
