// MatMul: batched row-major GEMMs mapped on the tensors' own buffers.
#include "runtime/ops/math/matmul.h"

#include <optional>

#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

#include "runtime/ops/math/float_compute.h"
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"

namespace ptq {
namespace {

// Y[i] = A[a_of[i]] * B[b_of[i]] for every output matrix i. When B is a single matrix the A
// matrices are stacked into one [batch * M, K] GEMM.
template <class T>
Tensor MatMulTyped(const Tensor& a, const Tensor& b, const MatMulShape& s, const PackedF32B* packed = nullptr) {
  Tensor y = Tensor::Uninitialized(a.dtype(), s.output);  // every element written by the GEMM
  const T* pa = a.data<T>();
  const T* pb = b.data<T>();
  T* py = y.data<T>();
  const int64_t count = static_cast<int64_t>(s.a_of.size());
  if constexpr (std::is_same<T, float>::value) {
    if (packed != nullptr && s.b_matrices == 1 && count * s.M > 0) {
      GemmF32Avx2Packed(count * s.M, 1.0f, pa, s.K, *packed, 0.0f, py, s.N);
      return y;
    }
  }
  if (s.b_matrices == 1) {
    RowMajorGemm<T>(false, false, count * s.M, s.N, s.K, T(1), pa, s.K, pb, s.N, T(0), py, s.N);
    return y;
  }
  for (int64_t i = 0; i < count; ++i) {
    const int64_t ai = s.a_of[static_cast<size_t>(i)];
    const int64_t bi = s.b_of[static_cast<size_t>(i)];
    RowMajorGemm<T>(false, false, s.M, s.N, s.K, T(1), pa + ai * s.M * s.K, s.K, pb + bi * s.K * s.N, s.N, T(0),
                    py + i * s.M * s.N, s.N);
  }
  return y;
}

class MatMulKernel final : public Kernel {
 public:
  explicit MatMulKernel(const KernelInit& init) {
    const Tensor* b = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    if (b && IsHalfType(b->dtype())) b_widened_ = WidenToFloat(*b);  // once, not per run
    // A constant float32 weight matrix packed once, not on every run (SessionOptions::prepack_float_weights).
    if (init.prepack_float_weights && b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->size() > 0 &&
        GetCpuFeatures().avx2_fma) {
      b_packed_ = PackF32B(false, b->dim(0), b->dim(1), b->data<float>(), b->dim(1));
    }
  }

  // Y[..., m, n] = sum_k A[..., m, k] * B[..., k, n]
  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    PTQ_ENFORCE(a.dtype() == b.dtype(), "inputs 'A' and 'B' must have the same type, got ", DataTypeName(a.dtype()),
                " and ", DataTypeName(b.dtype()));
    const MatMulShape s = ComputeMatMulShape(a.shape(), b.shape(), "input 'A'", "input 'B'");
    switch (a.dtype()) {
      case DataType::kFloat:  // b_packed_ is b's
        ctx.outputs[0] = MatMulTyped<float>(a, b, s, b_packed_ ? &*b_packed_ : nullptr);
        break;
      case DataType::kDouble: ctx.outputs[0] = MatMulTyped<double>(a, b, s); break;
      case DataType::kInt32: ctx.outputs[0] = MatMulTyped<int32_t>(a, b, s); break;
      case DataType::kInt64: ctx.outputs[0] = MatMulTyped<int64_t>(a, b, s); break;
      case DataType::kUint32: ctx.outputs[0] = MatMulTyped<uint32_t>(a, b, s); break;
      case DataType::kUint64: ctx.outputs[0] = MatMulTyped<uint64_t>(a, b, s); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor b_float = b_widened_.empty_value() ? WidenToFloat(b) : b_widened_;
        ctx.outputs[0] = NarrowFromFloat(MatMulTyped<float>(WidenToFloat(a), b_float, s), a.dtype());
        break;
      }
      default:
        ThrowInputError("input 'A' has type ", DataTypeName(a.dtype()),
                        "; MatMul supports float32, float64, float16, bfloat16, int32, int64, uint32, uint64");
    }
  }

 private:
  Tensor b_widened_;                    // constant float16/bfloat16 B as float32
  std::optional<PackedF32B> b_packed_;  // constant float32 B packed for GemmF32Avx2Packed
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMul(const KernelInit& init) { return MakeKernel<MatMulKernel>(init); }

}  // namespace ptq
