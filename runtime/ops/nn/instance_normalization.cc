// InstanceNormalization kernel: each (n, c) slice of X is a contiguous row normalized on its own.
#include "runtime/ops/nn/instance_normalization.h"

#include <cmath>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class InstanceNormalization final : public Kernel {
 public:
  explicit InstanceNormalization(const KernelInit& init) : epsilon_(init.attrs->GetFloat("epsilon", 1e-5f)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& scale = ctx.required_input(1);
    const Tensor& bias = ctx.required_input(2);
    PTQ_ENFORCE(x.rank() >= 2, "InstanceNormalization: input 'input' must have rank >= 2 (N x C x ...), got shape ",
                ShapeToString(x.shape()));
    const int64_t channels = x.dim(1);
    const int64_t rows = x.dim(0) * channels;
    const int64_t n = SizeOfRange(x.shape(), 2, x.rank());
    PTQ_ENFORCE(scale.size() == channels, "InstanceNormalization: input 'scale' has shape ",
                ShapeToString(scale.shape()), "; expected ", channels, " values");
    PTQ_ENFORCE(bias.size() == channels, "InstanceNormalization: input 'B' has shape ", ShapeToString(bias.shape()),
                "; expected ", channels, " values");
    DispatchType<kFloatTypes>(x.dtype(), "InstanceNormalization", "input", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      for (int64_t r = 0; r < rows; ++r) {
        const C* __restrict xr = in.data() + r * n;
        C* __restrict yr = out.data() + r * n;
        const int64_t c = r % channels;
        // mean = sum(x) / n;  var = sum((x - mean)^2) / n
        // y = x * a + b with a = scale / sqrt(var + epsilon), b = B - mean * a
        const C mean = RowSum(xr, n) / static_cast<C>(n);
        const C var = RowSumSquaredDiff(xr, n, mean) / static_cast<C>(n);
        const C a = static_cast<C>(scale.GetAsDouble(c)) / std::sqrt(var + static_cast<C>(epsilon_));
        const C b = static_cast<C>(bias.GetAsDouble(c)) - mean * a;
        for (int64_t i = 0; i < n; ++i) yr[i] = xr[i] * a + b;
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  float epsilon_;
};

}  // namespace

std::unique_ptr<Kernel> MakeInstanceNormalization(const KernelInit& init) {
  return MakeKernel<InstanceNormalization>(init);
}

}  // namespace ptq
