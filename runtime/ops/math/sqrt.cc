// Sqrt kernel: Y = sqrt(X) on float types.
#include "runtime/ops/math/sqrt.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = sqrt(x)
struct SqrtOp {
  template <class T>
  T operator()(T x) const {
    return std::sqrt(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSqrt(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SqrtOp{}); }

}  // namespace ptq
