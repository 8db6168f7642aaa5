// DequantizeLinear's vectorised loops over contiguous runs, for per-tensor and per-axis parameters;
// bit-identical to DequantizeValue (quant_math.h), which is their reference.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] = float(x[i] - zero_point) * scale for i < n (the subtraction in int32, as DequantizeValue).
// avx2 selects the AVX2 compilation of the loop (same results); REQUIRES for avx2:
// GetCpuFeatures().avx2_fma. The 4-bit types use the int8_t / uint8_t overloads (one element per
// byte). REQUIRES for int32 x: x[i] - zero_point does not overflow (ONNX: zero_point is 0).
void DequantizeRun(const int8_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2);
void DequantizeRun(const uint8_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2);
void DequantizeRun(const int16_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2);
void DequantizeRun(const uint16_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2);
void DequantizeRun(const int32_t* x, int64_t n, float scale, int32_t zero_point, float* y, bool avx2);

// The same with parameters per element (per-axis along the innermost axis):
// y[i] = float(x[i] - zero_point[i]) * scale[i].
void DequantizeRow(const int8_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2);
void DequantizeRow(const uint8_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2);
void DequantizeRow(const int16_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2);
void DequantizeRow(const uint16_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2);
void DequantizeRow(const int32_t* x, int64_t n, const float* scale, const int32_t* zero_point, float* y, bool avx2);

}  // namespace ptq
