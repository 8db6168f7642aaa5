// Sin kernel: Y = sin(X) on float types.
#include "runtime/ops/math/sin.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = sin(x)
struct SinOp {
  template <class T>
  T operator()(T x) const {
    return std::sin(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSin(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SinOp{}); }

}  // namespace ptq
