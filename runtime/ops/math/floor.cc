// Floor kernel: Y = floor(X) on float types.
#include "runtime/ops/math/floor.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = largest integer <= x
struct FloorOp {
  template <class T>
  T operator()(T x) const {
    return std::floor(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeFloor(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, FloorOp{}); }

}  // namespace ptq
