// HardSigmoid kernel: Y = clamp(alpha * X + beta, 0, 1) on float types.
#include "runtime/ops/math/hard_sigmoid.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = max(0, min(1, alpha * x + beta))   (attributes alpha = 0.2, beta = 0.5 by default)
struct HardSigmoidOp {
  float alpha;
  float beta;
  template <class T>
  T operator()(T x) const {
    const T h = static_cast<T>(alpha) * x + static_cast<T>(beta);
    return h < T(0) ? T(0) : (h > T(1) ? T(1) : h);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeHardSigmoid(const KernelInit& init) {
  const float alpha = init.attrs->GetFloat("alpha", 0.2f);
  const float beta = init.attrs->GetFloat("beta", 0.5f);
  return MakeUnaryKernel<kFloatTypes>(init, HardSigmoidOp{alpha, beta});
}

}  // namespace ptq
