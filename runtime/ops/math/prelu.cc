// PRelu kernel: Y = X < 0 ? slope * X : X with slope broadcast to X's shape.
#include "runtime/ops/math/prelu.h"

#include <type_traits>

#include "runtime/ops/math/elementwise.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

// y = x < 0 ? slope * x : x
struct PReluOp {
  template <class T>
  T operator()(T x, T slope) const {
    if constexpr (std::is_unsigned<T>::value) {
      return x;
    } else {
      return x < T(0) ? WrapMul(slope, x) : x;
    }
  }
};

// Opset 7+: slope broadcasts unidirectionally to X (numpy rules, result shape = X's shape).
// Before opset 7, a 1-D slope of X's channel count (axis 1) applies per channel.
class PReluKernel final : public Kernel {
 public:
  explicit PReluKernel(const KernelInit& init) : opset_(init.opset) {}
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    Tensor slope = ctx.required_input(1);
    PTQ_ENFORCE(x.dtype() == slope.dtype(), "PRelu: inputs 'X' and 'slope' must have the same type, got ",
                DataTypeName(x.dtype()), " and ", DataTypeName(slope.dtype()));
    if (opset_ < 7 && slope.rank() == 1 && x.rank() > 2 && slope.dim(0) == x.dim(1)) {
      Shape per_channel(static_cast<size_t>(x.rank() - 1), 1);
      per_channel[0] = slope.dim(0);
      slope = slope.Reshaped(per_channel);
    }
    PTQ_ENFORCE(BroadcastShapes(x.shape(), slope.shape()) == x.shape(), "PRelu: input 'slope' of shape ",
                ShapeToString(slope.shape()), " does not broadcast to the shape of input 'X' ",
                ShapeToString(x.shape()));
    DispatchType<kNumericTypes>(x.dtype(), "PRelu", "X", [&](auto e) {
      using E = decltype(e);
      ctx.outputs[0] = BroadcastBinary<E, E, E>(x, slope, PReluOp{});
    });
  }

 private:
  int opset_;
};

}  // namespace

std::unique_ptr<Kernel> MakePRelu(const KernelInit& init) { return std::make_unique<PReluKernel>(init); }

}  // namespace ptq
