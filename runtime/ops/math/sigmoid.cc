// Sigmoid kernel: Y = 1 / (1 + e^-X) on float types (vectorised for float32).
#include "runtime/ops/math/sigmoid.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

// y = 1 / (1 + e^-x)
struct SigmoidOp {
  float operator()(float x) const { return VecSigmoid(x); }
  template <class T>
  T operator()(T x) const {
    return T(1) / (T(1) + std::exp(-x));
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSigmoid(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, SigmoidOp{}); }

}  // namespace ptq
