// Ceil kernel: Y = ceil(X) on float types.
#include "runtime/ops/math/ceil.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = smallest integer >= x
struct CeilOp {
  template <class T>
  T operator()(T x) const {
    return std::ceil(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeCeil(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, CeilOp{}); }

}  // namespace ptq
