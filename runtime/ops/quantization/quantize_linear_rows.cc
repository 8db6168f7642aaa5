// QuantizeLinear's float32 loops, compiled for the baseline ISA and (x86-64) for AVX2; 8-bit outputs on AVX-512.
#include "runtime/ops/quantization/quantize_linear_rows.h"

#include "runtime/cpu_features.h"
#include "runtime/ops/math/elementwise.h"

#if PTQ_HAS_AVX2_CLONES
#include <immintrin.h>
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 and its AVX-512 pass-through operands
#endif

namespace ptq {
namespace {

// 1.5 * 2^23: for |v| < 2^22, (v + kRoundMagic) - kRoundMagic is v rounded half to even.
constexpr float kRoundMagic = 12582912.0f;

// y = round_half_even(clamp(x / scale, lo, hi)) + zero_point; NaN -> lo. `v > lo ? v : lo` is
// maxps and `v < hi ? v : hi` minps, exactly (no fast-math). Always inlined, so that each
// caller below compiles it for its own ISA.
template <class Q>
__attribute__((always_inline)) inline void RunLoop(const float* __restrict x, int64_t n, float scale, float lo,
                                                   float hi, float zero_point, Q* __restrict y) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / scale;
    v = v > lo ? v : lo;
    v = v < hi ? v : hi;
    const float r = (v + kRoundMagic) - kRoundMagic;
    y[i] = static_cast<Q>(static_cast<int32_t>(r + zero_point));
  }
}

template <class Q>
__attribute__((always_inline)) inline void RowLoop(const float* __restrict x, int64_t n,
                                                   const float* __restrict scale, const float* __restrict lo,
                                                   const float* __restrict hi, const float* __restrict zero_point,
                                                   Q* __restrict y) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] / scale[i];
    v = v > lo[i] ? v : lo[i];
    v = v < hi[i] ? v : hi[i];
    const float r = (v + kRoundMagic) - kRoundMagic;
    y[i] = static_cast<Q>(static_cast<int32_t>(r + zero_point[i]));
  }
}

template <class Q>
PTQ_TARGET_AVX2 void RunAvx2(const float* x, int64_t n, const QuantizeRunParams& p, Q* y) {
  RunLoop(x, n, p.scale, p.lo, p.hi, p.zero_point, y);
}

template <class Q>
PTQ_TARGET_AVX2 void RowAvx2(const float* x, int64_t n, const QuantizeRowParams& p, Q* y) {
  RowLoop(x, n, p.scale, p.lo, p.hi, p.zero_point, y);
}

#if PTQ_HAS_AVX2_CLONES
// RunLoop's operations on 16 values a step, 8-bit outputs narrowed by vpmovdb: 0.11 ns a value against 0.16 for
// RunAvx2 (GCC's ymm loop, bound by its divisions; 4 Ki values in L1). x * (1 / scale), checked for values near
// a tie and divided there, was no faster (0.14-0.15): the check's branch cost what the divisions did.
template <class Q>
PTQ_TARGET_AVX512 void RunAvx512(const float* x, int64_t n, const QuantizeRunParams& p, Q* y) {
  const __m512 scale = _mm512_set1_ps(p.scale), lo = _mm512_set1_ps(p.lo), hi = _mm512_set1_ps(p.hi);
  const __m512 magic = _mm512_set1_ps(kRoundMagic), zero_point = _mm512_set1_ps(p.zero_point);
  for (int64_t i = 0; i < n; i += 16) {
    const __mmask16 m = n - i >= 16 ? __mmask16(0xffff) : static_cast<__mmask16>((1u << (n - i)) - 1);
    __m512 v = _mm512_div_ps(_mm512_maskz_loadu_ps(m, x + i), scale);
    v = _mm512_min_ps(_mm512_max_ps(v, lo), hi);  // v > lo ? v : lo (NaN -> lo), then v < hi ? v : hi
    const __m512 r = _mm512_sub_ps(_mm512_add_ps(v, magic), magic);
    _mm512_mask_cvtepi32_storeu_epi8(y + i, m, _mm512_cvttps_epi32(_mm512_add_ps(r, zero_point)));
  }
}
#endif

template <class Q>
void Run(const float* x, int64_t n, const QuantizeRunParams& p, Q* y, bool avx2) {
#if PTQ_HAS_AVX2_CLONES
  if constexpr (sizeof(Q) == 1) {
    if (avx2 && GetCpuFeatures().avx512f) return RunAvx512(x, n, p, y);
  }
#endif
  if (PTQ_HAS_AVX2_CLONES && avx2) return RunAvx2(x, n, p, y);
  RunLoop(x, n, p.scale, p.lo, p.hi, p.zero_point, y);
}

template <class Q>
void Row(const float* x, int64_t n, const QuantizeRowParams& p, Q* y, bool avx2) {
  if (PTQ_HAS_AVX2_CLONES && avx2) return RowAvx2(x, n, p, y);
  RowLoop(x, n, p.scale, p.lo, p.hi, p.zero_point, y);
}

}  // namespace

QuantizeRunParams MakeQuantizeRunParams(float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  QuantizeRunParams p;
  p.scale = scale;
  p.lo = static_cast<float>(qmin - zero_point);
  p.hi = static_cast<float>(qmax - zero_point);
  p.zero_point = static_cast<float>(zero_point);
  return p;
}

void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, int8_t* y, bool avx2) {
  Run(x, n, p, y, avx2);
}
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, uint8_t* y, bool avx2) {
  Run(x, n, p, y, avx2);
}
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, int16_t* y, bool avx2) {
  Run(x, n, p, y, avx2);
}
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, uint16_t* y, bool avx2) {
  Run(x, n, p, y, avx2);
}

void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, int8_t* y, bool avx2) {
  Row(x, n, p, y, avx2);
}
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, uint8_t* y, bool avx2) {
  Row(x, n, p, y, avx2);
}
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, int16_t* y, bool avx2) {
  Row(x, n, p, y, avx2);
}
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, uint16_t* y, bool avx2) {
  Row(x, n, p, y, avx2);
}

}  // namespace ptq
