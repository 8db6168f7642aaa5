// MatMulInteger (opset 10+): Y = numpy.matmul(A - a_zero_point, B - b_zero_point), accumulated in int32,
// on the int8 GEMM kernels (a constant B is packed once, when the session is prepared).
#include "runtime/ops/quantization/matmul_integer.h"

#include <optional>
#include <vector>

#include "runtime/error.h"
#include "runtime/ops/quantization/int8_matmul.h"
#include "runtime/ops/quantization/integer_to_float.h"
#include "runtime/kernels/int8_gemm/int_matmul_reference.h"

namespace ptq {
namespace {

void CheckInt8OrUint8(const Tensor& t, const char* name) {
  PTQ_ENFORCE(t.dtype() == DataType::kUint8 || t.dtype() == DataType::kInt8, name, " must be uint8 or int8, got ",
              DataTypeName(t.dtype()));
}

void CheckZeroPointType(const Tensor& zero_point, const char* zp_name, const Tensor& x, const char* x_name) {
  PTQ_ENFORCE(zero_point.dtype() == x.dtype(), zp_name, " has type ", DataTypeName(zero_point.dtype()), " but ",
              x_name, " has type ", DataTypeName(x.dtype()), "; they must match");
}

// b_zero_point per B matrix and column (ColumnParamIndex order); zeros when zp is null.
std::vector<int32_t> BZeroPoints(const Tensor* zp, const Tensor& b, int64_t count) {
  if (zp == nullptr) return std::vector<int32_t>(static_cast<size_t>(count), 0);
  CheckZeroPointType(*zp, "b_zero_point", b, "B");
  return GatherColumnParam<int32_t>(*zp, b.shape(), "b_zero_point");
}

int64_t BColumns(const Tensor& b) {
  const int64_t N = b.rank() == 1 ? 1 : b.shape().back();
  return b.rank() <= 2 ? N : ShapeSize(Shape(b.shape().begin(), b.shape().end() - 2)) * N;
}

class MatMulIntegerKernel : public Kernel {
 public:
  // A constant B with a constant (or absent) b_zero_point is packed here, once.
  MatMulIntegerKernel(const KernelInit& init, bool to_float)
      : to_float_(to_float), a_zp_(to_float ? kToFloatAZeroPoint : 2), b_zp_(to_float ? kToFloatBZeroPoint : 3) {
    const Tensor* b = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    const bool zp_absent = init.num_inputs <= b_zp_;
    const Tensor* zp = zp_absent ? nullptr : init.const_inputs[static_cast<size_t>(b_zp_)];
    if (b == nullptr || (!zp_absent && zp == nullptr) || b->rank() == 0) return;
    if (b->dtype() != DataType::kUint8 && b->dtype() != DataType::kInt8) return;
    try {
      packed_ = PackInt8Matrices(*b, BZeroPoints(zp, *b, BColumns(*b)));
    } catch (const Error&) {
      // Malformed constants: Run reports them with the node's name.
    }
  }

  // Y[..., m, n] = sum_k (A[..., m, k] - a_zero_point[m]) * (B[..., k, n] - b_zero_point[n])  (int32)
  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    CheckInt8OrUint8(a, "A");
    CheckInt8OrUint8(b, "B");
    const MatMulShape shape = ComputeMatMulShape(a.shape(), b.shape(), "A", "B");

    std::vector<int32_t> a_zero_point(static_cast<size_t>(shape.a_matrices * shape.M), 0);
    if (const Tensor* zp = ctx.input(a_zp_)) {
      CheckZeroPointType(*zp, "a_zero_point", a, "A");
      a_zero_point = GatherRowParam<int32_t>(*zp, a.shape(), "a_zero_point");
    }
    const std::vector<int32_t> b_zero_point = BZeroPoints(ctx.input(b_zp_), b, shape.b_matrices * shape.N);
    const bool use_packed = packed_ && packed_->b_shape == b.shape() && packed_->dtype == b.dtype();
    if (to_float_) {
      const FloatScaling s = ReadFloatScaling(ctx, shape.N, shape.b_matrices);
      const Tensor* int_bias = ctx.input(kToFloatIntBias);
      PTQ_ENFORCE(!int_bias || (int_bias->dtype() == DataType::kInt32 && int_bias->size() == shape.N &&
                                shape.b_matrices == 1),
                  "input 'int_bias' must hold ", shape.N, " int32 values for one B matrix");
      Tensor y = Tensor::Uninitialized(DataType::kFloat, shape.output);
      Int8MatMul(a, a_zero_point, b, b_zero_point, use_packed ? &*packed_ : nullptr, shape, Int8Output::kFloat,
                 s.multiplier.data(), 0, y, s.bias.data(), int_bias ? int_bias->data<int32_t>() : nullptr);
      ctx.outputs[0] = std::move(y);
      return;
    }
    Tensor y = Tensor::Uninitialized(DataType::kInt32, shape.output);
    Int8MatMul(a, a_zero_point, b, b_zero_point, use_packed ? &*packed_ : nullptr, shape, Int8Output::kInt32,
               nullptr, 0, y);
    ctx.outputs[0] = std::move(y);
  }

 private:
  bool to_float_;
  int a_zp_, b_zp_;  // the zero points' input indices
  std::optional<PackedInt8Matrices> packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulIntegerKernel(const KernelInit& init, bool to_float) {
  return std::make_unique<MatMulIntegerKernel>(init, to_float);
}

std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInit& init) { return MakeMatMulIntegerKernel(init, false); }

}  // namespace ptq
