// LeakyRelu kernel: Y = X < 0 ? alpha * X : X on float types.
#include "runtime/ops/math/leaky_relu.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x < 0 ? alpha * x : x   (attribute alpha, default 0.01)
struct LeakyReluOp {
  float alpha;
  template <class T>
  T operator()(T x) const {
    return x < T(0) ? static_cast<T>(alpha) * x : x;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeLeakyRelu(const KernelInit& init) {
  return MakeUnaryKernel<kFloatTypes>(init, LeakyReluOp{init.attrs->GetFloat("alpha", 0.01f)});
}

}  // namespace ptq
