// Min kernel: element-wise minimum of one or more inputs with numpy broadcasting.
#include "runtime/ops/math/min.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = min(x0, x1, ...); a NaN operand gives NaN
struct MinOp {
  template <class T>
  T operator()(T a, T b) const {
    return (b < a || b != b) ? b : a;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMin(const KernelInit& init) { return MakeVariadicKernel<kNumericTypes>(init, MinOp{}); }

}  // namespace ptq
