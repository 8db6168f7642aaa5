// Neg kernel: Y = -X for signed integer and float types.
#include "runtime/ops/math/neg.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = -x (integers wrap at the minimum, as two's complement)
struct NegOp {
  template <class T>
  T operator()(T x) const {
    if constexpr (kIsInt<T>) {
      return WrapSub(T(0), x);
    } else {
      return -x;
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeNeg(const KernelInit& init) { return MakeUnaryKernel<kSignedTypes>(init, NegOp{}); }

}  // namespace ptq
