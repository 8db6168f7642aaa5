// MatMulInteger (opset 10+): Y = numpy.matmul(A - a_zero_point, B - b_zero_point), accumulated in int32.
#include "runtime/ops/matmul_integer.h"

#include <vector>

#include "runtime/error.h"
#include "runtime/ops/int_matmul_reference.h"

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

class MatMulIntegerKernel : public Kernel {
 public:
  explicit MatMulIntegerKernel(const KernelInit&) {}

  // Y[..., m, n] = sum_k (A[..., m, k] - a_zero_point[m]) * (B[..., k, n] - b_zero_point[n])  (int32)
  void Run(KernelContext& ctx) override {
    const Tensor& a = ctx.required_input(0);
    const Tensor& b = ctx.required_input(1);
    CheckInt8OrUint8(a, "A");
    CheckInt8OrUint8(b, "B");
    const MatMulShape shape = ComputeMatMulShape(a.shape(), b.shape(), "A", "B");

    std::vector<int32_t> a_zero_point(static_cast<size_t>(shape.a_matrices * shape.M), 0);
    if (const Tensor* zp = ctx.input(2)) {
      CheckZeroPointType(*zp, "a_zero_point", a, "A");
      a_zero_point = GatherParam<int32_t>(*zp, RowParamIndex(zp->shape(), a.shape(), "a_zero_point"));
    }
    std::vector<int32_t> b_zero_point(static_cast<size_t>(shape.b_matrices * shape.N), 0);
    if (const Tensor* zp = ctx.input(3)) {
      CheckZeroPointType(*zp, "b_zero_point", b, "B");
      b_zero_point = GatherParam<int32_t>(*zp, ColumnParamIndex(zp->shape(), b.shape(), "b_zero_point"));
    }
    ctx.outputs[0] = IntMatMulReference(a, b, a_zero_point, b_zero_point, shape);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInit& init) { return MakeKernel<MatMulIntegerKernel>(init); }

}  // namespace ptq
