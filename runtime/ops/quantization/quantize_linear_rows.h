// QuantizeLinear's vectorised loops over contiguous float32 runs, for per-tensor and per-axis
// parameters; bit-identical to QuantizeValue (quant_math.h), which is their reference.
#pragma once

#include <cstdint>

namespace ptq {

// One scale / zero-point pair in the form the loops use. The formula
//   y = saturate(round_half_even(x / scale) + zero_point, qmin, qmax)
// is computed as
//   y = round_half_even(clamp(x / scale, lo, hi)) + zero_point,  lo = qmin - zero_point, hi = qmax - zero_point
// with NaN clamped to lo (so NaN -> qmin). Clamping first gives the same integer (lo and hi are
// integers and rounding is monotonic) and keeps |value| < 2^22, where adding and subtracting
// 1.5 * 2^23 rounds half to even exactly (default rounding mode, as std::nearbyint).
struct QuantizeRunParams {
  float scale = 1.0f;
  float lo = 0.0f;
  float hi = 0.0f;
  float zero_point = 0.0f;
};

// REQUIRES: qmin <= qmax, and zero_point, qmin, qmax within +-2^17.
QuantizeRunParams MakeQuantizeRunParams(float scale, int32_t zero_point, int32_t qmin, int32_t qmax);

// Per-element parameters (per-axis quantization along the innermost axis): element i uses
// scale[i], lo[i], hi[i], zero_point[i] (each as in QuantizeRunParams).
struct QuantizeRowParams {
  const float* scale = nullptr;
  const float* lo = nullptr;
  const float* hi = nullptr;
  const float* zero_point = nullptr;
};

// y[i] = QuantizeValue(x[i], scale, zero_point, qmin, qmax) for i < n, with one parameter pair.
// avx2 selects the AVX2 compilation of the loop (same results); REQUIRES for avx2:
// GetCpuFeatures().avx2_fma. The 4-bit types use the int8_t / uint8_t overloads (one element per byte).
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, int8_t* y, bool avx2);
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, uint8_t* y, bool avx2);
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, int16_t* y, bool avx2);
void QuantizeRun(const float* x, int64_t n, const QuantizeRunParams& p, uint16_t* y, bool avx2);

// The same with parameters per element: y[i] uses element i of each array of p.
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, int8_t* y, bool avx2);
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, uint8_t* y, bool avx2);
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, int16_t* y, bool avx2);
void QuantizeRow(const float* x, int64_t n, const QuantizeRowParams& p, uint16_t* y, bool avx2);

}  // namespace ptq
