// Round kernel: Y = X rounded half to even on float types.
#include "runtime/ops/math/round.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = nearest integer to x, ties to even (std::nearbyint in the default rounding mode)
struct RoundOp {
  template <class T>
  T operator()(T x) const {
    return std::nearbyint(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeRound(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, RoundOp{}); }

}  // namespace ptq
