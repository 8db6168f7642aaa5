// BitShift kernel: Z = X << Y (direction "LEFT") or X >> Y ("RIGHT") on unsigned integer types; a
// shift by the type's width or more gives 0 (numpy's result, and no undefined behaviour).
#include "runtime/ops/math/bit_shift.h"

#include <climits>
#include <string>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

struct BitShiftOp {
  bool left;
  template <class T>
  T operator()(T x, T y) const {
    if constexpr (std::is_unsigned<T>::value && !std::is_same<T, bool>::value) {
      if (y >= static_cast<T>(sizeof(T) * CHAR_BIT)) return T(0);
      using W = WrapType<T>;  // at least 32 bits, so that << on uint8/uint16 does not promote to int
      return static_cast<T>(left ? static_cast<W>(x) << y : static_cast<W>(x) >> y);
    } else {
      return x;  // not instantiated for the dispatched (unsigned) types
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeBitShift(const KernelInit& init) {
  const std::string direction = init.attrs->GetString("direction", "");
  PTQ_ENFORCE(direction == "LEFT" || direction == "RIGHT", "attribute 'direction' is '", direction,
              "'; expected LEFT or RIGHT");
  return MakeBinaryKernel<kUnsignedIntTypes>(init, BitShiftOp{direction == "LEFT"});
}

}  // namespace ptq
