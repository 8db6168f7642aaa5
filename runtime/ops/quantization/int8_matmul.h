// numpy.matmul of uint8/int8 tensors on the int8 GEMM kernels: batch broadcasting, constant B packed
// once, int32 or requantized 8-bit output. Results equal IntMatMulReference (+ RequantizeValue) bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/int8_gemm/int8_gemm.h"
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "runtime/tensor.h"

namespace ptq {

// Every [K, N] matrix of a B tensor, packed for BestInt8Isa(), with its zero points.
struct PackedInt8Matrices {
  Shape b_shape;
  DataType dtype = DataType::kUint8;
  std::vector<PackedInt8B> matrices;
};

// Packs b (uint8/int8, rank >= 1; a 1-D b is [K, 1]); b_zero_point holds N values per B matrix
// (ColumnParamIndex order).
PackedInt8Matrices PackInt8Matrices(const Tensor& b, const std::vector<int32_t>& b_zero_point);

// y = numpy.matmul(a - a_zero_point, b - b_zero_point) (+ bias[j * N + n], int32 wrapping, when bias is
// given) as int32 (out == kInt32), or requantized with multiplier[j * N + n] for column n of B matrix j
// (8-bit outputs), or as float32 times that multiplier plus float_bias[j * N + n] (kFloat; float_bias may
// be null). Zero points as IntMatMulReference.
// `packed` (may be null) is b packed by PackInt8Matrices with the same zero points.
// REQUIRES: shape == ComputeMatMulShape(a.shape(), b.shape(), ...); y has shape.output and the type of `out`.
void Int8MatMul(const Tensor& a, const std::vector<int32_t>& a_zero_point, const Tensor& b,
                const std::vector<int32_t>& b_zero_point, const PackedInt8Matrices* packed, const MatMulShape& shape,
                Int8Output out, const float* multiplier, int32_t y_zero_point, Tensor& y,
                const float* float_bias = nullptr, const int32_t* bias = nullptr);

}  // namespace ptq
