// Abs kernel: Y = |X| for every numeric type.
#include "runtime/ops/math/abs.h"

#include <cmath>
#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = |x| (unsigned: x; signed integers wrap at the minimum, as two's complement)
struct AbsOp {
  template <class T>
  T operator()(T x) const {
    if constexpr (std::is_unsigned<T>::value) {
      return x;
    } else if constexpr (kIsInt<T>) {
      return x < 0 ? WrapSub(T(0), x) : x;
    } else {
      return std::abs(x);
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeAbs(const KernelInit& init) { return MakeUnaryKernel<kNumericTypes>(init, AbsOp{}); }

}  // namespace ptq
