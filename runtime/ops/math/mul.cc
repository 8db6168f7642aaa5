// Mul kernel: C = A * B with numpy broadcasting, every numeric type.
#include "runtime/ops/math/mul.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a * b (integers wrap)
struct MulOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapMul(a, b);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMul(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes>(init, MulOp{});
}

}  // namespace ptq
