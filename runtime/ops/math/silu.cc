// Silu kernel: Y = X * Sigmoid(X) in one pass (vectorised for float32).
#include "runtime/ops/math/silu.h"

#include <cmath>

#include "runtime/kernels/vector/vector_math.h"
#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = x * (1 / (1 + e^-x)), the sigmoid as sigmoid.cc computes it.
struct SiluOp {
  float operator()(float x) const { return x * VecSigmoid(x); }
  template <class T>
  T operator()(T x) const {
    return x * (T(1) / (T(1) + std::exp(-x)));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSilu(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SiluOp{}); }

}  // namespace ptq
