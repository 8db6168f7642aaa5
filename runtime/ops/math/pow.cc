// Pow kernel: Z = X ^ Y with numpy broadcasting; Y may be of another numeric type than X.
#include "runtime/ops/math/pow.h"

#include <cmath>
#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// x^e for integers by repeated squaring, wrapping on overflow. e < 0: 1 for x == 1,
// +-1 for x == -1, else 0 (the truncated value of 1 / x^|e|; x == 0 also gives 0).
template <class T, class U>
T IntPow(T x, U e) {
  if constexpr (std::is_signed<U>::value) {
    if (e < 0) {
      if (x == T(1)) return T(1);
      if constexpr (std::is_signed<T>::value) {
        if (x == T(-1)) return (e % 2 == 0) ? T(1) : T(-1);
      }
      return T(0);
    }
  }
  T result = T(1);
  T base = x;
  for (auto n = static_cast<std::make_unsigned_t<U>>(e); n != 0; n >>= 1) {
    if (n & 1u) result = WrapMul(result, base);
    base = WrapMul(base, base);
  }
  return result;
}

// z = x^y in X's type. Float X: std::pow in float (double when X or Y is double).
// Integer X: exact integer power for integer Y; for float Y, pow in double, then truncated and
// saturated to X's type.
struct PowOp {
  template <class A, class B>
  A operator()(A x, B y) const {
    if constexpr (std::is_floating_point<A>::value) {
      using W = std::conditional_t<std::is_same<A, double>::value || std::is_same<B, double>::value, double, float>;
      return static_cast<A>(std::pow(static_cast<W>(x), static_cast<W>(y)));
    } else if constexpr (std::is_floating_point<B>::value) {
      return SaturateCast<A>(std::pow(static_cast<double>(x), static_cast<double>(y)));
    } else {
      return IntPow(x, y);
    }
  }
};

// True when X is float32 and Y is a single element equal to 2 whose shape does not widen X's.
bool IsFloatSquare(const Tensor& x, const Tensor& y) {
  if (x.dtype() != DataType::kFloat || y.size() != 1 || y.rank() > x.rank()) return false;
  if (y.dtype() == DataType::kFloat) return y.data<float>()[0] == 2.0f;
  if (y.dtype() == DataType::kDouble) return y.data<double>()[0] == 2.0;
  if (y.dtype() == DataType::kInt64) return y.data<int64_t>()[0] == 2;
  if (y.dtype() == DataType::kInt32) return y.data<int32_t>()[0] == 2;
  return false;
}

class PowKernel final : public Kernel {
 public:
  explicit PowKernel(const KernelInit& init) : legacy_(ReadLegacyBroadcast(init)) {}
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& y0 = ctx.required_input(1);
    const Tensor y = legacy_.enabled ? AlignLegacyB(legacy_, x, y0, "Pow") : y0;
    if (IsFloatSquare(x, y)) {  // x^2 is exactly x*x rounded once, as powf gives; LayerNorm's variance
      ctx.outputs[0] = MapUnary<Elem<DataType::kFloat>, Elem<DataType::kFloat>>(x, [](float v) { return v * v; });
      return;
    }
    DispatchType<kNumericTypes>(x.dtype(), "Pow", "X", [&](auto ex) {
      DispatchType<kNumericTypes>(y.dtype(), "Pow", "Y", [&](auto ey) {
        using EX = decltype(ex);
        using EY = decltype(ey);
        ctx.outputs[0] = BroadcastBinary<EX, EY, EX>(x, y, PowOp{});
      });
    });
  }

 private:
  LegacyBroadcast legacy_;
};

}  // namespace

std::unique_ptr<Kernel> MakePow(const KernelInit& init) { return std::make_unique<PowKernel>(init); }

}  // namespace ptq
