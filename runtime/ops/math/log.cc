// Log kernel: Y = ln(X) on float types.
#include "runtime/ops/math/log.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = ln(x)
struct LogOp {
  template <class T>
  T operator()(T x) const {
    return std::log(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeLog(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, LogOp{}); }

}  // namespace ptq
