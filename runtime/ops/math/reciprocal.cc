// Reciprocal kernel: Y = 1 / X on float types.
#include "runtime/ops/math/reciprocal.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = 1 / x
struct ReciprocalOp {
  template <class T>
  T operator()(T x) const {
    return T(1) / x;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeReciprocal(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, ReciprocalOp{}); }

}  // namespace ptq
