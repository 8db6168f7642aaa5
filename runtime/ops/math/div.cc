// Div kernel: C = A / B with numpy broadcasting; integer division truncates toward zero.
#include "runtime/ops/math/div.h"

#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a / b. Integers: truncated toward zero (as C++ and ONNX Runtime); b == 0 is an input
// error; the minimum divided by -1 wraps to the minimum.
struct DivOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      PTQ_ENFORCE(b != 0, "Div: integer division by zero (input 'B' has a zero element)");
      if constexpr (std::is_signed<T>::value) {
        if (b == T(-1)) return WrapSub(T(0), a);
      }
      return static_cast<T>(a / b);
    } else {
      return a / b;
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeDiv(const KernelInit& init) { return MakeBinaryKernel<kNumericTypes>(init, DivOp{}); }

}  // namespace ptq
