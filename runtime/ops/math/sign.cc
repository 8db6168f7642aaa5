// Sign kernel: Y = sign(X) for every numeric type.
#include "runtime/ops/math/sign.h"

#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x > 0 ? 1 : (x < 0 ? -1 : x)   (0 and NaN map to themselves)
struct SignOp {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value) {
      return x > 0 ? T(1) : T(0);
    } else {
      return x > T(0) ? T(1) : (x < T(0) ? T(-1) : x);
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSign(const KernelInit& init) { return MakeUnaryKernel<kNumericTypes>(init, SignOp{}); }

}  // namespace ptq
