// Clip kernel: Y = min(max(X, min), max); bounds are attributes before opset 11, inputs from 11.
#include "runtime/ops/math/clip.h"

#include <limits>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = min(max(x, lo), hi): every element becomes hi when lo > hi; NaN stays NaN.
// Opset < 11: lo, hi from attributes min, max (absent: float lowest / max).
// Opset >= 11: lo, hi from the optional scalar inputs 1 and 2 (absent: no bound); integer
// types are accepted (the spec allows them from opset 12).
class ClipKernel final : public Kernel {
 public:
  explicit ClipKernel(const KernelInit& init) : opset_(init.opset) {
    if (opset_ < 11) {
      attr_min_ = init.attrs->GetFloat("min", std::numeric_limits<float>::lowest());
      attr_max_ = init.attrs->GetFloat("max", std::numeric_limits<float>::max());
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    DispatchType<kNumericTypes>(x.dtype(), "Clip", "input", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      C lo = std::numeric_limits<C>::has_infinity ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::lowest();
      C hi = std::numeric_limits<C>::has_infinity ? std::numeric_limits<C>::infinity() : std::numeric_limits<C>::max();
      if (opset_ < 11) {
        lo = static_cast<C>(attr_min_);
        hi = static_cast<C>(attr_max_);
      } else {
        if (const Tensor* t = ctx.input(1)) lo = Bound<E>(*t, x, "min");
        if (const Tensor* t = ctx.input(2)) hi = Bound<E>(*t, x, "max");
      }
      ctx.outputs[0] = MapUnary<E, E>(x, [lo, hi](C v) {
        const C t = v < lo ? lo : v;
        return hi < t ? hi : t;
      });
    });
  }

 private:
  template <class E>
  static typename E::Compute Bound(const Tensor& t, const Tensor& x, const char* name) {
    PTQ_ENFORCE(t.dtype() == x.dtype(), "Clip: input '", name, "' has type ", DataTypeName(t.dtype()),
                "; expected the type of 'input', ", DataTypeName(x.dtype()));
    PTQ_ENFORCE(t.size() == 1, "Clip: input '", name, "' must be a scalar, got shape ", ShapeToString(t.shape()));
    return E::Load(t.data<typename E::Storage>()[0]);
  }

  int opset_;
  float attr_min_ = 0.0f;
  float attr_max_ = 0.0f;
};

}  // namespace

std::unique_ptr<Kernel> MakeClip(const KernelInit& init) { return std::make_unique<ClipKernel>(init); }

}  // namespace ptq
