// DequantizeLinear's loops, compiled for the baseline ISA and (x86-64) for AVX2.
#include "runtime/ops/quantization/dequantize_linear_rows.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = float(x - zero_point) * scale. Always inlined, so that each caller below compiles it for
// its own ISA.
template <class Q>
__attribute__((always_inline)) inline void RunLoop(const Q* __restrict x, int64_t n, float scale, int32_t zero_point,
                                                   float* __restrict y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point) * scale;
}

template <class Q>
__attribute__((always_inline)) inline void RowLoop(const Q* __restrict x, int64_t n, const float* __restrict scale,
                                                   const int32_t* __restrict zero_point, float* __restrict y) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(static_cast<int32_t>(x[i]) - zero_point[i]) * scale[i];
}

template <class Q>
PTQ_TARGET_AVX2 void RunAvx2(const Q* x, int64_t n, float scale, int32_t zero_point, float* y) {
  RunLoop(x, n, scale, zero_point, y);
}

template <class Q>
PTQ_TARGET_AVX2 void RowAvx2(const Q* x, int64_t n, const float* scale, const int32_t* zero_point, float* y) {
  RowLoop(x, n, scale, zero_point, y);
}

template <class Q>
void Run(const Q* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  if (PTQ_HAS_AVX2_CLONES && avx2) return RunAvx2(x, n, scale, zero_point, y);
  RunLoop(x, n, scale, zero_point, y);
}

template <class Q>
void Row(const Q* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  if (PTQ_HAS_AVX2_CLONES && avx2) return RowAvx2(x, n, scale, zero_point, y);
  RowLoop(x, n, scale, zero_point, y);
}

}  // namespace

void DequantizeRun(const int8_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  Run(x, n, scale, zero_point, y, avx2);
}
void DequantizeRun(const uint8_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  Run(x, n, scale, zero_point, y, avx2);
}
void DequantizeRun(const int16_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  Run(x, n, scale, zero_point, y, avx2);
}
void DequantizeRun(const uint16_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  Run(x, n, scale, zero_point, y, avx2);
}
void DequantizeRun(const int32_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2) {
  Run(x, n, scale, zero_point, y, avx2);
}

void DequantizeRow(const int8_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  Row(x, n, scale, zero_point, y, avx2);
}
void DequantizeRow(const uint8_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  Row(x, n, scale, zero_point, y, avx2);
}
void DequantizeRow(const int16_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  Row(x, n, scale, zero_point, y, avx2);
}
void DequantizeRow(const uint16_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  Row(x, n, scale, zero_point, y, avx2);
}
void DequantizeRow(const int32_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2) {
  Row(x, n, scale, zero_point, y, avx2);
}

}  // namespace ptq
