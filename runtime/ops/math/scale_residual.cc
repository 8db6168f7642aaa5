// ScaleResidual kernel: Y = X + X * S in one pass over X (a squeeze-and-excitation residual, PP-OCRv4's RSE layers:
// the product was stored, then read back by the Add).
#include "runtime/ops/math/scale_residual.h"

#include <type_traits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

struct ScaleResidualOp {
  template <class T>
  T operator()(T x, T s) const {
    return WrapAdd(x, WrapMul(x, s));
  }
};

class ScaleResidualKernel final : public Kernel {
 public:
  explicit ScaleResidualKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& s = ctx.required_input(1);
    PTQ_ENFORCE(x.dtype() == s.dtype(), "inputs 'X' and 'S' must have the same type, got ", DataTypeName(x.dtype()),
                " and ", DataTypeName(s.dtype()));
    DispatchType<kNumericTypes>(x.dtype(), "ScaleResidual", "X", [&](auto e) {
      using E = decltype(e);
      if constexpr (std::is_same<typename E::Storage, typename E::Compute>::value) {
        ctx.outputs[0] = BroadcastBinary<E, E, E>(x, s, ScaleResidualOp{}, ctx.Reusable(0), ctx.Reusable(1));
      } else {  // 16-bit floats: the product rounded to 16 bits, as the Mul node stores it
        const Tensor t = BroadcastBinary<E, E, E>(x, s, [](auto a, auto b) { return a * b; });
        ctx.outputs[0] = BroadcastBinary<E, E, E>(x, t, [](auto a, auto b) { return a + b; });
      }
    });
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeScaleResidual(const KernelInit& init) { return MakeKernel<ScaleResidualKernel>(init); }

}  // namespace ptq
