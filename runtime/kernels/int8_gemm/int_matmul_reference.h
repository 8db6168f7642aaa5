// Plain integer matmul (numpy.matmul shapes, zero points per tensor/row/column, int32 accumulators):
// the kernel behind MatMulInteger and QLinearMatMul, and the oracle that fast kernels are tested against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

// The shapes of numpy.matmul(a, b). A 1-D a of shape [K] is read as [1, K] and a 1-D b of shape [K]
// as [K, 1]; the axes added that way are dropped from `output`. The batch axes (all but the last
// two) broadcast. a holds a_matrices contiguous [M, K] matrices, b holds b_matrices [K, N] ones, and
// the output holds a_of.size() [M, N] matrices, the i-th being matrix a_of[i] of a times b_of[i] of b.
struct MatMulShape {
  int64_t M = 0;
  int64_t K = 0;
  int64_t N = 0;
  Shape output;
  int64_t a_matrices = 0;
  int64_t b_matrices = 0;
  std::vector<int64_t> a_of;
  std::vector<int64_t> b_of;
};

// Throws an input error naming `a_name` and `b_name` when either has rank 0, the K axes differ, or
// the batch axes do not broadcast.
MatMulShape ComputeMatMulShape(const Shape& a, const Shape& b, const std::string& a_name,
                               const std::string& b_name);

// Where each row of a (per-row quantization) finds its parameter in a tensor of shape `param`:
// element i * M + m of the result is the flat index into the parameter for row m of matrix i of a.
// Accepted shapes: any shape that broadcasts to a's row shape [..., M, 1] without growing it
// (scalar, [1], [..., M, 1]), and 1-D [M] when a is 2-D. Otherwise throws an input error naming
// `param_name`.
std::vector<int64_t> RowParamIndex(const Shape& param, const Shape& a, const std::string& param_name);

// The same for the columns of b (per-column quantization): element j * N + n is the index for
// column n of matrix j of b. Accepted shapes: any shape that broadcasts to b's column shape
// [..., 1, N] without growing it (scalar, [1], [N], [..., 1, N]).
std::vector<int64_t> ColumnParamIndex(const Shape& param, const Shape& b, const std::string& param_name);

// The values of `param` at `index`, converted to T (zero points to int32_t, scales to float).
template <class T>
std::vector<T> GatherParam(const Tensor& param, const std::vector<int64_t>& index) {
  std::vector<T> out(index.size());
  for (size_t i = 0; i < index.size(); ++i) out[i] = static_cast<T>(param.GetAsDouble(index[i]));
  return out;
}

// GatherParam(param, RowParamIndex(param.shape(), a, name)) (resp. ColumnParamIndex for b), without
// building the index when param is a scalar or [1] (per tensor: the common case).
template <class T>
std::vector<T> GatherRowParam(const Tensor& param, const Shape& a, const std::string& name) {
  if (param.rank() == 0 || (param.rank() == 1 && param.dim(0) == 1)) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
    return std::vector<T>(static_cast<size_t>(rows), static_cast<T>(param.GetAsDouble(0)));
  }
  return GatherParam<T>(param, RowParamIndex(param.shape(), a, name));
}
template <class T>
std::vector<T> GatherColumnParam(const Tensor& param, const Shape& b, const std::string& name) {
  if (param.rank() == 0 || (param.rank() == 1 && param.dim(0) == 1)) {
    int64_t columns = b.size() == 1 ? 1 : b.back();
    for (size_t i = 0; i + 2 < b.size(); ++i) columns *= b[i];
    return std::vector<T>(static_cast<size_t>(columns), static_cast<T>(param.GetAsDouble(0)));
  }
  return GatherParam<T>(param, ColumnParamIndex(param.shape(), b, name));
}

// One matrix product with zero points, all matrices row-major and contiguous:
//   c[m][n] = sum_k (a[m][k] - a_zero_point[m]) * (b[k][n] - b_zero_point[n])   (modulo 2^32)
// a is [M, K], b is [K, N], c is [M, N]; a_zero_point holds M values and b_zero_point N (repeat the
// value for per-tensor). The sum wraps as int32 accumulation would, without undefined behaviour.
// TA and TB are uint8_t or int8_t.
template <class TA, class TB>
void IntGemmReference(int64_t M, int64_t N, int64_t K, const TA* a, const int32_t* a_zero_point, const TB* b,
                      const int32_t* b_zero_point, int32_t* c);

// numpy.matmul of uint8/int8 tensors a and b with zero points, as an int32 tensor of shape
// shape.output. a_zero_point holds shape.a_matrices * M values (row m of matrix i at i * M + m),
// b_zero_point holds shape.b_matrices * N (see RowParamIndex / ColumnParamIndex).
// REQUIRES: shape == ComputeMatMulShape(a.shape(), b.shape(), ...).
Tensor IntMatMulReference(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zero_point,
                          const std::vector<int32_t>& b_zero_point, const MatMulShape& shape);

}  // namespace ptq
