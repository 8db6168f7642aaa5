// Sum kernel: element-wise sum of one or more inputs with numpy broadcasting.
#include "runtime/ops/math/sum.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x0 + x1 + ... (integers wrap)
struct SumOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSum(const KernelInit& init) { return MakeVariadicKernel<kNumericTypes>(init, SumOp{}); }

}  // namespace ptq
