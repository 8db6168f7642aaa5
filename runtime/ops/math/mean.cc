// Mean kernel: y = (x0 + x1 + ... + x_{n-1}) / n with numpy broadcasting, on float types (the sum is
// the Sum kernel's, then one division per element).
#include "runtime/ops/math/mean.h"

#include <string>

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

struct AddOp {
  template <class T>
  T operator()(T a, T b) const {
    return a + b;
  }
};

class Mean : public Kernel {
 public:
  explicit Mean(const KernelInit& init) : sum_(MakeVariadicKernel<kFloatTypes>(init, AddOp{})) {}

  void Run(KernelContext& ctx) override {
    sum_->Run(ctx);
    const Tensor sum = std::move(ctx.outputs[0]);
    const int n = ctx.num_inputs();
    DispatchType<kFloatTypes>(sum.dtype(), "Mean", "data_0", [&](auto e) {
      using E = decltype(e);
      ctx.outputs[0] = MapUnary<E, E>(sum, [n](auto v) { return v / static_cast<decltype(v)>(n); });
    });
  }

 private:
  std::unique_ptr<Kernel> sum_;
};

}  // namespace

std::unique_ptr<Kernel> MakeMean(const KernelInit& init) { return MakeKernel<Mean>(init); }

}  // namespace ptq
