// Relu kernel: Y = max(X, 0) on float and signed integer types.
#include "runtime/ops/math/relu.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x < 0 ? 0 : x (NaN stays NaN)
struct ReluOp {
  template <class T>
  T operator()(T x) const {
    return x < T(0) ? T(0) : x;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeRelu(const KernelInit& init) { return MakeUnaryKernel<kSignedTypes>(init, ReluOp{}); }

}  // namespace ptq
