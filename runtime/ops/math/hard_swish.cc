// HardSwish kernel: Y = X * clamp(X / 6 + 1/2, 0, 1) on float types.
#include "runtime/ops/math/hard_swish.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x * max(0, min(1, x / 6 + 1/2))
struct HardSwishOp {
  template <class T>
  T operator()(T x) const {
    const T h = x / T(6) + T(0.5);
    const T c = h < T(0) ? T(0) : (h > T(1) ? T(1) : h);
    return x * c;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeHardSwish(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, HardSwishOp{}); }

}  // namespace ptq
