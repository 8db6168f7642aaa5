// Erf kernel: Y = erf(X) on float types (vectorised for float32).
#include "runtime/ops/math/erf.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

// y = erf(x) = 2/sqrt(pi) * integral from 0 to x of e^(-t^2) dt
struct ErfOp {
  float operator()(float x) const { return VecErf(x); }
  template <class T>
  T operator()(T x) const {
    return std::erf(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeErf(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, ErfOp{}); }

}  // namespace ptq
