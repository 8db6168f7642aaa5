// Softplus kernel: Y = ln(e^X + 1) on float types.
#include "runtime/ops/math/softplus.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = ln(e^x + 1), computed as x + ln(1 + e^-x) for x > 0 so that it does not overflow
struct SoftplusOp {
  template <class T>
  T operator()(T x) const {
    return x > T(0) ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSoftplus(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SoftplusOp{}); }

}  // namespace ptq
