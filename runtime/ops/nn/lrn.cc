// LRN kernel on float types, X of shape [N, C, D1, ..., Dk]:
//   square_sum[n, c, d] = sum of X[n, i, d]^2 for i in [c - floor((size - 1) / 2), c + ceil((size - 1) / 2)] ∩ [0, C)
//   Y[n, c, d] = X[n, c, d] / (bias + alpha / size * square_sum[n, c, d])^beta
// Attributes: size (required, >= 1), alpha = 1e-4, beta = 0.75, bias = 1.
#include "runtime/ops/nn/lrn.h"

#include <algorithm>
#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/math/row_math.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class LRN : public Kernel {
 public:
  explicit LRN(const KernelInit& init)
      : size_(init.attrs->RequireInt("size")),
        alpha_(init.attrs->GetFloat("alpha", 1e-4f)),
        beta_(init.attrs->GetFloat("beta", 0.75f)),
        bias_(init.attrs->GetFloat("bias", 1.0f)) {
    PTQ_ENFORCE(size_ >= 1, "attribute 'size' is ", size_, "; it must be >= 1");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    PTQ_ENFORCE(x.rank() >= 2, "input 'X' must have rank >= 2 ([N, C, ...]), has shape ", ShapeToString(x.shape()));
    const int64_t batch = x.dim(0), channels = x.dim(1);
    const int64_t spatial = SizeOfRange(x.shape(), 2, x.rank());
    const int64_t before = (size_ - 1) / 2, after = size_ - 1 - before;
    DispatchType<kFloatTypes>(x.dtype(), "LRN", "X", [&](auto e) {
      using E = decltype(e);
      using C = typename E::Compute;
      ComputeView<E> in(x);
      ComputeOutput<E> out(x.shape());
      const C* px = in.data();
      C* py = out.data();
      const C scale = static_cast<C>(alpha_) / static_cast<C>(size_);
      for (int64_t n = 0; n < batch; ++n) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t lo = std::max<int64_t>(0, c - before);
          const int64_t hi = std::min<int64_t>(channels - 1, c + after);
          for (int64_t d = 0; d < spatial; ++d) {
            C sum = C(0);
            for (int64_t i = lo; i <= hi; ++i) {
              const C v = px[(n * channels + i) * spatial + d];
              sum += v * v;
            }
            const int64_t at = (n * channels + c) * spatial + d;
            py[at] = px[at] / std::pow(static_cast<C>(bias_) + scale * sum, static_cast<C>(beta_));
          }
        }
      }
      ctx.outputs[0] = out.Finish();
    });
  }

 private:
  int64_t size_;
  float alpha_;
  float beta_;
  float bias_;
};

}  // namespace

std::unique_ptr<Kernel> MakeLRN(const KernelInit& init) { return MakeKernel<LRN>(init); }

}  // namespace ptq
