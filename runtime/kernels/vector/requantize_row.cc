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

// The bias, multiplier and float bias of element i: one value for all (kPer false) or one each.
template <bool kPer>
struct RowParams {
  const int32_t* bias;
  const float* multiplier;
  const float* float_bias;  // kFloat output only; may be null
  int32_t y_zero_point;

  int32_t b(int64_t i) const { return bias == nullptr ? 0 : bias[kPer ? i : 0]; }
  float m(int64_t i) const { return multiplier[kPer ? i : 0]; }
  float fb(int64_t i) const { return float_bias == nullptr ? 0.0f : float_bias[kPer ? i : 0]; }
};

// Elements [begin, n) one at a time.
template <class Acc, bool kPer>
void RequantizeScalar(const Acc* acc, int64_t begin, int64_t n, const RowParams<kPer>& p, Int8Output type, void* out) {
  if (type == Int8Output::kInt32) {
    auto* o = static_cast<int32_t*>(out);
    for (int64_t i = begin; i < n; ++i) o[i] = WrapAdd(acc[i], p.b(i));
    return;
  }
  if (type == Int8Output::kFloat) {
    auto* o = static_cast<float*>(out);
    for (int64_t i = begin; i < n; ++i) o[i] = static_cast<float>(WrapAdd(acc[i], p.b(i))) * p.m(i) + p.fb(i);
    return;
  }
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  auto* o = static_cast<uint8_t*>(out);
  for (int64_t i = begin; i < n; ++i) {
    o[i] = static_cast<uint8_t>(RequantizeValue(WrapAdd(acc[i], p.b(i)), p.m(i), p.y_zero_point, qmin, qmax));
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

template <class Acc, bool kPer>
__attribute__((target("avx512f"))) int64_t RequantizeAvx512(const Acc* acc, int64_t n, const RowParams<kPer>& p,
                                                              Int8Output type, void* out) {
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  const __m512 lo = _mm512_set1_ps(static_cast<float>(qmin - p.y_zero_point));
  const __m512 hi = _mm512_set1_ps(static_cast<float>(qmax - p.y_zero_point));
  const __m512i zp = _mm512_set1_epi32(p.y_zero_point);
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m512i b = !kPer || p.bias == nullptr ? _mm512_set1_epi32(p.b(0)) : _mm512_loadu_si512(p.bias + i);
    const __m512 m = kPer ? _mm512_loadu_ps(p.multiplier + i) : _mm512_set1_ps(p.m(0));
    const __m512i a = _mm512_add_epi32(Load16(acc + i), b);
    if (type == Int8Output::kInt32) {
      _mm512_storeu_si512(static_cast<int32_t*>(out) + i, a);
      continue;
    }
    if (type == Int8Output::kFloat) {  // a multiply, then an add (no FMA), as the scalar form
      const __m512 fb = !kPer || p.float_bias == nullptr ? _mm512_set1_ps(p.fb(0)) : _mm512_loadu_ps(p.float_bias + i);
      _mm512_storeu_ps(static_cast<float*>(out) + i, _mm512_add_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(a), m), fb));
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

template <class Acc, bool kPer>
__attribute__((target("avx2"))) int64_t RequantizeAvx2(const Acc* acc, int64_t n, const RowParams<kPer>& p,
                                                        Int8Output type, void* out) {
  const bool is_signed = type == Int8Output::kInt8;
  const int32_t qmin = is_signed ? -128 : 0, qmax = is_signed ? 127 : 255;
  const __m256 lo = _mm256_set1_ps(static_cast<float>(qmin - p.y_zero_point));
  const __m256 hi = _mm256_set1_ps(static_cast<float>(qmax - p.y_zero_point));
  const __m256i zp = _mm256_set1_epi32(p.y_zero_point);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i b = !kPer || p.bias == nullptr ? _mm256_set1_epi32(p.b(0))
                                                 : _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p.bias + i));
    const __m256 m = kPer ? _mm256_loadu_ps(p.multiplier + i) : _mm256_set1_ps(p.m(0));
    const __m256i a = _mm256_add_epi32(Load8(acc + i), b);
    if (type == Int8Output::kInt32) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<int32_t*>(out) + i), a);
      continue;
    }
    if (type == Int8Output::kFloat) {  // a multiply, then an add (no FMA), as the scalar form
      const __m256 fb = !kPer || p.float_bias == nullptr ? _mm256_set1_ps(p.fb(0)) : _mm256_loadu_ps(p.float_bias + i);
      _mm256_storeu_ps(static_cast<float*>(out) + i, _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(a), m), fb));
      continue;
    }
    __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(a), m);
    v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    v = _mm256_min_ps(_mm256_max_ps(v, lo), hi);  // max(v, lo) is lo for NaN (the second operand)
    const __m256i q = _mm256_add_epi32(_mm256_cvtps_epi32(v), zp);
    // Every q is within the 8-bit type's range, so the saturating packs below keep it exactly.
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    const __m128i bytes = is_signed ? _mm_packs_epi16(w, w) : _mm_packus_epi16(w, w);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(out) + i), bytes);
  }
  return i;
}
#endif

template <class Acc, bool kPer>
void Requantize(const Acc* acc, int64_t n, const RowParams<kPer>& p, Int8Output type, void* out) {
  int64_t done = 0;
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  if (cpu.avx512f) {
    done = RequantizeAvx512(acc, n, p, type, out);
  } else if (cpu.avx2_fma) {
    done = RequantizeAvx2(acc, n, p, type, out);
  }
#endif
  RequantizeScalar(acc, done, n, p, type, out);
}

}  // namespace

void RequantizeRow(const int32_t* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out) {
  Requantize(acc, n, RowParams<false>{&bias, &multiplier, nullptr, y_zero_point}, type, out);
}

void RequantizeRow(const float* acc, int64_t n, int32_t bias, float multiplier, int32_t y_zero_point,
                   Int8Output type, void* out) {
  Requantize(acc, n, RowParams<false>{&bias, &multiplier, nullptr, y_zero_point}, type, out);
}

void RequantizeChannels(const float* acc, int64_t n, const int32_t* bias, const float* multiplier,
                        int32_t y_zero_point, Int8Output type, void* out, const float* float_bias) {
  Requantize(acc, n, RowParams<true>{bias, multiplier, float_bias, y_zero_point}, type, out);
}

}  // namespace ptq
