// Cos kernel: Y = cos(X) on float types.
#include "runtime/ops/math/cos.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = cos(x)
struct CosOp {
  template <class T>
  T operator()(T x) const {
    return std::cos(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeCos(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, CosOp{}); }

}  // namespace ptq
