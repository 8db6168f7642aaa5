// Mod kernel: C = A mod B with numpy broadcasting (attribute fmod selects the sign convention).
#include "runtime/ops/math/mod.h"

#include <cmath>
#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// Integer c = a % b truncated (sign of a). b == 0 is an input error; b == -1 gives 0.
template <class T>
T TruncatedIntMod(T a, T b) {
  PTQ_ENFORCE(b != 0, "Mod: integer modulo by zero (input 'B' has a zero element)");
  if constexpr (std::is_signed<T>::value) {
    if (b == T(-1)) return T(0);
  }
  return static_cast<T>(a % b);
}

// fmod=1: c = fmod(a, b), the remainder of a / b truncated: it has the sign of a.
struct FmodOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      return TruncatedIntMod(a, b);
    } else {
      return std::fmod(a, b);
    }
  }
};

// fmod=0 (integers only): c = a - b * floor(a / b): it has the sign of b (Python's %).
struct FloorModOp {
  template <class T>
  T operator()(T a, T b) const {
    if constexpr (kIsInt<T>) {
      const T r = TruncatedIntMod(a, b);
      if constexpr (std::is_signed<T>::value) {
        if (r != 0 && ((r < 0) != (b < 0))) return static_cast<T>(r + b);
      }
      return r;
    } else {
      ThrowInputError("Mod: floating-point inputs need attribute fmod=1 (fmod=0 is for integers)");
    }
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeMod(const KernelInit& init) {
  const int64_t fmod = init.attrs->GetInt("fmod", 0);
  PTQ_ENFORCE(fmod == 0 || fmod == 1, "Mod: attribute 'fmod' is ", fmod, "; expected 0 or 1");
  if (fmod == 1) return MakeBinaryKernel<kNumericTypes>(init, FmodOp{});
  return MakeBinaryKernel<kNumericTypes>(init, FloorModOp{});
}

}  // namespace ptq
