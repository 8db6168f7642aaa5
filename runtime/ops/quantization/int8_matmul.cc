// Batched int8 matmul over Int8Gemm: one GEMM when B is shared, else one per output matrix, in parallel.
#include "runtime/ops/quantization/int8_matmul.h"

#include <omp.h>

#include "runtime/shape_util.h"
#include "runtime/threading.h"

namespace ptq {
namespace {

// Below this many multiply-adds in all, the matrices of a batch run one after another on this thread.
constexpr int64_t kParallelBatchMacs = int64_t{1} << 20;

int64_t ElementBytes(Int8Output out) { return out == Int8Output::kInt32 || out == Int8Output::kFloat ? 4 : 1; }

}  // namespace

PackedInt8Matrices PackInt8Matrices(const Tensor& b, const std::vector<int32_t>& b_zero_point) {
  PackedInt8Matrices packed;
  packed.b_shape = b.shape();
  packed.dtype = b.dtype();
  const Shape& s = b.shape();
  const int64_t K = s.size() == 1 ? s[0] : s[s.size() - 2];
  const int64_t N = s.size() == 1 ? 1 : s.back();
  const int64_t count = s.size() <= 2 ? 1 : ShapeSize(Shape(s.begin(), s.end() - 2));
  packed.matrices.resize(static_cast<size_t>(count));
  const auto* bytes = static_cast<const uint8_t*>(b.raw());
  for (int64_t j = 0; j < count; ++j) {
    packed.matrices[static_cast<size_t>(j)].Pack(bytes + j * K * N, b.dtype() == DataType::kInt8, K, N, N, false,
                                                 b_zero_point.data() + j * N, BestInt8Isa());
  }
  return packed;
}

void Int8MatMul(const Tensor& a, const std::vector<int32_t>& a_zero_point, const Tensor& b,
                const std::vector<int32_t>& b_zero_point, const PackedInt8Matrices* packed, const MatMulShape& s,
                Int8Output out, const float* multiplier, int32_t y_zero_point, Tensor& y, const float* float_bias,
                const int32_t* bias) {
  const int64_t outputs = static_cast<int64_t>(s.a_of.size());
  if (outputs == 0 || s.M == 0 || s.N == 0) return;
  const auto* a_bytes = static_cast<const uint8_t*>(a.raw());
  const auto* b_bytes = static_cast<const uint8_t*>(b.raw());
  auto* y_bytes = static_cast<uint8_t*>(y.raw());
  const bool a_signed = a.dtype() == DataType::kInt8;
  const bool b_signed = b.dtype() == DataType::kInt8;
  const int64_t elem = ElementBytes(out);

  // B matrices packed here when not given; packed once each when outputs share them.
  std::vector<PackedInt8B> local;
  const bool pack_each = packed == nullptr && s.b_matrices >= outputs;
  if (packed == nullptr && !pack_each) {
    local.resize(static_cast<size_t>(s.b_matrices));
    for (int64_t j = 0; j < s.b_matrices; ++j) {
      local[static_cast<size_t>(j)].Pack(b_bytes + j * s.K * s.N, b_signed, s.K, s.N, s.N, false,
                                         b_zero_point.data() + j * s.N, BestInt8Isa());
    }
  }
  auto matrix = [&](int64_t j) -> const PackedInt8B& {
    return packed != nullptr ? packed->matrices[static_cast<size_t>(j)] : local[static_cast<size_t>(j)];
  };
  auto gemm = [&](const PackedInt8B& pb, int64_t i, int64_t rows) {
    const int64_t ai = s.a_of[static_cast<size_t>(i)];
    const int64_t bi = s.b_of[static_cast<size_t>(i)];
    const Int8GemmA in{rows, a_bytes + ai * s.M * s.K, a_signed, s.K, a_zero_point.data() + ai * s.M, true};
    const Int8GemmOut o{out, y_bytes + i * s.M * s.N * elem, s.N, bias != nullptr ? bias + bi * s.N : nullptr,
                        multiplier != nullptr ? multiplier + bi * s.N : nullptr, y_zero_point,
                        float_bias != nullptr ? float_bias + bi * s.N : nullptr};
    Int8Gemm(in, pb, o);
  };

  // One B for all, and a's matrices in order: a single GEMM over all their rows.
  bool stacked = s.b_matrices == 1 && !pack_each && s.a_matrices == outputs;
  for (int64_t i = 0; stacked && i < outputs; ++i) stacked = s.a_of[static_cast<size_t>(i)] == i;
  if (stacked) {
    gemm(matrix(0), 0, outputs * s.M);
    return;
  }
  auto one = [&](int64_t i) {
    if (pack_each) {
      thread_local PackedInt8B scratch;
      const int64_t bi = s.b_of[static_cast<size_t>(i)];
      scratch.Pack(b_bytes + bi * s.K * s.N, b_signed, s.K, s.N, s.N, false, b_zero_point.data() + bi * s.N,
                   BestInt8Isa());
      gemm(scratch, i, s.M);
    } else {
      gemm(matrix(s.b_of[static_cast<size_t>(i)]), i, s.M);
    }
  };
  const bool parallel = outputs > 1 && outputs * s.M * s.N * s.K >= kParallelBatchMacs && !InParallelRegion();
  if (!parallel) {  // a plain loop, not an inactive parallel region: each GEMM may then share its own work
    for (int64_t i = 0; i < outputs; ++i) one(i);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < outputs; ++i) one(i);
}

}  // namespace ptq
