// QuantizeLinear's float32 loops, compiled for the baseline ISA and (x86-64) for AVX2.
#include "runtime/ops/quantization/quantize_linear_rows.h"

#include "runtime/ops/math/elementwise.h"

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

template <class Q>
void Run(const float* x, int64_t n, const QuantizeRunParams& p, Q* y, bool avx2) {
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
