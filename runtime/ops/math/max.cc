// Max kernel: element-wise maximum of one or more inputs with numpy broadcasting.
#include "runtime/ops/math/max.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = max(x0, x1, ...); a NaN operand gives NaN
struct MaxOp {
  template <class T>
  T operator()(T a, T b) const {
    return (a < b || b != b) ? b : a;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMax(const KernelInit& init) { return MakeVariadicKernel<kNumericTypes>(init, MaxOp{}); }

}  // namespace ptq
