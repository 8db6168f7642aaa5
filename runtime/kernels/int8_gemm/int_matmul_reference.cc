// Plain integer matmul: numpy.matmul shapes, quantization-parameter layouts, and the reference kernel.
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"

#include <algorithm>

#include "runtime/error.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// For each element of `to` (row-major), the flat index of the element of a `from`-shaped tensor
// that numpy broadcasting maps onto it. REQUIRES: `from` broadcasts to `to`.
std::vector<int64_t> BroadcastIndex(const Shape& from, const Shape& to) {
  const std::vector<int64_t> strides = BroadcastStrides(from, to);
  std::vector<int64_t> index(static_cast<size_t>(ShapeSize(to)));
  std::vector<int64_t> pos(to.size(), 0);
  for (int64_t& out : index) {
    int64_t offset = 0;
    for (size_t d = 0; d < to.size(); ++d) offset += pos[d] * strides[d];
    out = offset;
    for (size_t d = to.size(); d-- > 0;) {
      if (++pos[d] < to[d]) break;
      pos[d] = 0;
    }
  }
  return index;
}

// True when `from` broadcasts to `to` without growing it: no higher rank, and each axis (aligned
// right) equal to `to`'s or 1.
bool BroadcastsInto(const Shape& from, const Shape& to) {
  if (from.size() > to.size()) return false;
  const size_t offset = to.size() - from.size();
  for (size_t i = 0; i < from.size(); ++i) {
    if (from[i] != 1 && from[i] != to[i + offset]) return false;
  }
  return true;
}

Shape PromoteA(const Shape& a) { return a.size() == 1 ? Shape{1, a[0]} : a; }
Shape PromoteB(const Shape& b) { return b.size() == 1 ? Shape{b[0], 1} : b; }

template <class TA, class TB>
void RunMatrices(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zero_point,
                 const std::vector<int32_t>& b_zero_point, const MatMulShape& s, Tensor& y) {
  const TA* a_data = a.data<TA>();
  const TB* b_data = b.data<TB>();
  int32_t* y_data = y.data<int32_t>();
  for (size_t i = 0; i < s.a_of.size(); ++i) {
    const int64_t ai = s.a_of[i];
    const int64_t bi = s.b_of[i];
    IntGemmReference(s.M, s.N, s.K, a_data + ai * s.M * s.K, a_zero_point.data() + ai * s.M,
                     b_data + bi * s.K * s.N, b_zero_point.data() + bi * s.N,
                     y_data + static_cast<int64_t>(i) * s.M * s.N);
  }
}

bool IsInt8OrUint8(DataType t) { return t == DataType::kInt8 || t == DataType::kUint8; }

}  // namespace

MatMulShape ComputeMatMulShape(const Shape& a, const Shape& b, const std::string& a_name,
                               const std::string& b_name) {
  PTQ_ENFORCE(!a.empty(), a_name, " must have rank >= 1 (numpy.matmul), got a scalar");
  PTQ_ENFORCE(!b.empty(), b_name, " must have rank >= 1 (numpy.matmul), got a scalar");
  const Shape a2 = PromoteA(a);
  const Shape b2 = PromoteB(b);
  MatMulShape s;
  s.M = a2[a2.size() - 2];
  s.K = a2.back();
  s.N = b2.back();
  const int64_t b_k = b2[b2.size() - 2];
  PTQ_ENFORCE(b_k == s.K, "inner dimensions differ: ", a_name, " has shape ", ShapeToString(a), " (K = ", s.K,
              ") but ", b_name, " has shape ", ShapeToString(b), " (K = ", b_k, ")");
  const Shape a_batch(a2.begin(), a2.end() - 2);
  const Shape b_batch(b2.begin(), b2.end() - 2);
  Shape batch;
  try {
    batch = BroadcastShapes(a_batch, b_batch);
  } catch (const Error&) {
    ThrowInputError("batch dimensions of ", a_name, " ", ShapeToString(a), " and ", b_name, " ", ShapeToString(b),
                    " do not broadcast");
  }
  s.a_matrices = ShapeSize(a_batch);
  s.b_matrices = ShapeSize(b_batch);
  s.a_of = BroadcastIndex(a_batch, batch);
  s.b_of = BroadcastIndex(b_batch, batch);
  s.output = batch;
  if (a.size() > 1) s.output.push_back(s.M);
  if (b.size() > 1) s.output.push_back(s.N);
  return s;
}

std::vector<int64_t> RowParamIndex(const Shape& param, const Shape& a, const std::string& param_name) {
  Shape rows = PromoteA(a);
  rows.back() = 1;
  const int64_t M = rows[rows.size() - 2];
  if (a.size() == 2 && param.size() == 1 && param[0] == M) return BroadcastIndex(Shape{M, 1}, rows);
  PTQ_ENFORCE(BroadcastsInto(param, rows), param_name, " has shape ", ShapeToString(param),
              "; for a matrix of shape ", ShapeToString(a), " it must be a scalar (per tensor) or per row: ",
              (a.size() == 2 ? StrCat("[", M, "] or ") : std::string()), ShapeToString(rows));
  return BroadcastIndex(param, rows);
}

std::vector<int64_t> ColumnParamIndex(const Shape& param, const Shape& b, const std::string& param_name) {
  Shape columns = PromoteB(b);
  columns[columns.size() - 2] = 1;
  PTQ_ENFORCE(BroadcastsInto(param, columns), param_name, " has shape ", ShapeToString(param),
              "; for a matrix of shape ", ShapeToString(b), " it must be a scalar (per tensor) or per column: [",
              columns.back(), "] or ", ShapeToString(columns));
  return BroadcastIndex(param, columns);
}

template <class TA, class TB>
void IntGemmReference(int64_t M, int64_t N, int64_t K, const TA* a, const int32_t* a_zero_point, const TB* b,
                      const int32_t* b_zero_point, int32_t* c) {
  // Products are taken in int64 (exact for any int32 zero point) and summed in uint32, whose
  // wraparound is defined; the final cast to int32 is two's complement (guaranteed from C++20,
  // and what GCC and Clang do before).
  std::vector<uint32_t> row(static_cast<size_t>(N));
  for (int64_t m = 0; m < M; ++m) {
    std::fill(row.begin(), row.end(), 0u);
    for (int64_t k = 0; k < K; ++k) {
      const int64_t av = static_cast<int64_t>(a[m * K + k]) - a_zero_point[m];
      const TB* b_row = b + k * N;
      for (int64_t n = 0; n < N; ++n) {
        row[static_cast<size_t>(n)] += static_cast<uint32_t>(av * (static_cast<int64_t>(b_row[n]) - b_zero_point[n]));
      }
    }
    for (int64_t n = 0; n < N; ++n) c[m * N + n] = static_cast<int32_t>(row[static_cast<size_t>(n)]);
  }
}

template void IntGemmReference<uint8_t, uint8_t>(int64_t, int64_t, int64_t, const uint8_t*, const int32_t*,
                                                 const uint8_t*, const int32_t*, int32_t*);
template void IntGemmReference<uint8_t, int8_t>(int64_t, int64_t, int64_t, const uint8_t*, const int32_t*,
                                                const int8_t*, const int32_t*, int32_t*);
template void IntGemmReference<int8_t, uint8_t>(int64_t, int64_t, int64_t, const int8_t*, const int32_t*,
                                                const uint8_t*, const int32_t*, int32_t*);
template void IntGemmReference<int8_t, int8_t>(int64_t, int64_t, int64_t, const int8_t*, const int32_t*,
                                               const int8_t*, const int32_t*, int32_t*);

Tensor IntMatMulReference(const Tensor& a, const Tensor& b, const std::vector<int32_t>& a_zero_point,
                          const std::vector<int32_t>& b_zero_point, const MatMulShape& shape) {
  PTQ_ENFORCE(IsInt8OrUint8(a.dtype()), "integer matmul: a must be uint8 or int8, got ", DataTypeName(a.dtype()));
  PTQ_ENFORCE(IsInt8OrUint8(b.dtype()), "integer matmul: b must be uint8 or int8, got ", DataTypeName(b.dtype()));
  Tensor y(DataType::kInt32, shape.output);
  const bool a_signed = a.dtype() == DataType::kInt8;
  const bool b_signed = b.dtype() == DataType::kInt8;
  if (a_signed && b_signed) {
    RunMatrices<int8_t, int8_t>(a, b, a_zero_point, b_zero_point, shape, y);
  } else if (a_signed) {
    RunMatrices<int8_t, uint8_t>(a, b, a_zero_point, b_zero_point, shape, y);
  } else if (b_signed) {
    RunMatrices<uint8_t, int8_t>(a, b, a_zero_point, b_zero_point, shape, y);
  } else {
    RunMatrices<uint8_t, uint8_t>(a, b, a_zero_point, b_zero_point, shape, y);
  }
  return y;
}

}  // namespace ptq
