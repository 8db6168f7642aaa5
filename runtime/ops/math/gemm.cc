// Gemm: C broadcast into the output, then one row-major GEMM accumulating onto it.
#include "runtime/ops/math/gemm.h"

#include <optional>

#include "runtime/ops/math/float_compute.h"
#include "runtime/cpu_features.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"

namespace ptq {
namespace {

struct GemmParams {
  bool trans_a = false;
  bool trans_b = false;
  double alpha = 1.0;
  double beta = 1.0;
};

// Y[m][n] = C[m or 0][n or 0] for C of shape [], [1], [N], [1, N], [M, 1], [M, N] (or 1s).
template <class T>
void BroadcastC(const Tensor& c, int64_t M, int64_t N, T* y) {
  const Shape& cs = c.shape();
  PTQ_ENFORCE(cs.size() <= 2, "input 'C' has shape ", ShapeToString(cs), "; expected rank <= 2");
  const int64_t c_rows = cs.size() == 2 ? cs[0] : 1;
  const int64_t c_cols = cs.empty() ? 1 : cs.back();
  PTQ_ENFORCE((c_rows == 1 || c_rows == M) && (c_cols == 1 || c_cols == N), "input 'C' has shape ", ShapeToString(cs),
              " which does not broadcast to the output [", M, ", ", N, "]");
  const T* pc = c.data<T>();
  for (int64_t m = 0; m < M; ++m) {
    const T* crow = pc + (c_rows == 1 ? 0 : m * c_cols);
    T* yrow = y + m * N;
    if (c_cols == 1) {
      for (int64_t n = 0; n < N; ++n) yrow[n] = crow[0];
    } else {
      for (int64_t n = 0; n < N; ++n) yrow[n] = crow[n];
    }
  }
}

// Y = alpha * A' * B' + beta * C; c may be null (treated as 0).
template <class T>
Tensor GemmTyped(const GemmParams& p, const Tensor& a, const Tensor& b, const Tensor* c,
                 const PackedF32B* packed = nullptr) {
  PTQ_ENFORCE(a.rank() == 2, "input 'A' has shape ", ShapeToString(a.shape()), "; expected a matrix (rank 2)");
  PTQ_ENFORCE(b.rank() == 2, "input 'B' has shape ", ShapeToString(b.shape()), "; expected a matrix (rank 2)");
  const int64_t M = p.trans_a ? a.dim(1) : a.dim(0);
  const int64_t K = p.trans_a ? a.dim(0) : a.dim(1);
  const int64_t b_k = p.trans_b ? b.dim(1) : b.dim(0);
  const int64_t N = p.trans_b ? b.dim(0) : b.dim(1);
  PTQ_ENFORCE(K == b_k, "inner dimensions differ: A has shape ", ShapeToString(a.shape()), " (transA ", p.trans_a,
              ") and B has shape ", ShapeToString(b.shape()), " (transB ", p.trans_b, ")");
  Tensor y = Tensor::Uninitialized(a.dtype(), {M, N});  // C broadcast, or beta 0 ignores it
  T beta = static_cast<T>(p.beta);
  if (c && beta != T(0)) {
    BroadcastC<T>(*c, M, N, y.data<T>());
  } else {
    beta = T(0);
  }
  if constexpr (std::is_same<T, float>::value) {
    if (packed != nullptr && !p.trans_a && M > 0) {
      GemmF32Avx2Packed(M, static_cast<float>(p.alpha), a.data<float>(), a.dim(1), *packed, beta, y.data<float>(), N);
      return y;
    }
  }
  RowMajorGemm<T>(p.trans_a, p.trans_b, M, N, K, static_cast<T>(p.alpha), a.data<T>(), a.dim(1), b.data<T>(), b.dim(1),
                  beta, y.data<T>(), N);
  return y;
}

class GemmKernel final : public Kernel {
 public:
  explicit GemmKernel(const KernelInit& init) {
    p_.trans_a = init.attrs->GetInt("transA", 0) != 0;
    p_.trans_b = init.attrs->GetInt("transB", 0) != 0;
    p_.alpha = init.attrs->GetFloat("alpha", 1.0f);
    p_.beta = init.attrs->GetFloat("beta", 1.0f);
    const Tensor* b = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    if (b && IsHalfType(b->dtype())) b_widened_ = WidenToFloat(*b);  // once, not per run
    // A constant float32 B is packed once here, not on every run (a classifier head of 1000 x 1280 with
    // transB, as torch exports Linear layers, took longer to pack than to multiply at batch 1).
    if (init.prepack_float_weights && b && b->dtype() == DataType::kFloat && b->rank() == 2 && b->size() > 0 &&
        GetCpuFeatures().avx2_fma) {
      b_packed_ = PackF32B(p_.trans_b, p_.trans_b ? b->dim(1) : b->dim(0), p_.trans_b ? b->dim(0) : b->dim(1),
                           b->data<float>(), b->dim(1));
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    const Tensor* c = ctx.input(2);
    PTQ_ENFORCE(a.dtype() == b.dtype(), "inputs 'A' and 'B' must have the same type, got ", DataTypeName(a.dtype()),
                " and ", DataTypeName(b.dtype()));
    PTQ_ENFORCE(!c || c->dtype() == a.dtype(), "input 'C' has type ", DataTypeName(c ? c->dtype() : a.dtype()),
                " but 'A' has type ", DataTypeName(a.dtype()));
    switch (a.dtype()) {
      case DataType::kFloat:
        ctx.outputs[0] = GemmTyped<float>(p_, a, b, c, b_packed_ ? &*b_packed_ : nullptr);  // b_packed_ is b's
        break;
      case DataType::kDouble: ctx.outputs[0] = GemmTyped<double>(p_, a, b, c); break;
      case DataType::kInt32: ctx.outputs[0] = GemmTyped<int32_t>(p_, a, b, c); break;
      case DataType::kInt64: ctx.outputs[0] = GemmTyped<int64_t>(p_, a, b, c); break;
      case DataType::kUint32: ctx.outputs[0] = GemmTyped<uint32_t>(p_, a, b, c); break;
      case DataType::kUint64: ctx.outputs[0] = GemmTyped<uint64_t>(p_, a, b, c); break;
      case DataType::kFloat16:
      case DataType::kBfloat16: {
        const Tensor b_float = b_widened_.empty_value() ? WidenToFloat(b) : b_widened_;
        const Tensor c_float = c ? WidenToFloat(*c) : Tensor();
        const Tensor y = GemmTyped<float>(p_, WidenToFloat(a), b_float, c ? &c_float : nullptr);
        ctx.outputs[0] = NarrowFromFloat(y, a.dtype());
        break;
      }
      default:
        ThrowInputError("input 'A' has type ", DataTypeName(a.dtype()),
                        "; Gemm supports float32, float64, float16, bfloat16, int32, int64, uint32, uint64");
    }
  }

 private:
  GemmParams p_;
  Tensor b_widened_;                    // constant float16/bfloat16 B as float32
  std::optional<PackedF32B> b_packed_;  // constant float32 B, packed for GemmF32Avx2Packed
};

}  // namespace

std::unique_ptr<Kernel> MakeGemm(const KernelInit& init) { return MakeKernel<GemmKernel>(init); }

}  // namespace ptq
