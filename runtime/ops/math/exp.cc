// Exp kernel: Y = e^X on float types (vectorised for float32).
#include "runtime/ops/math/exp.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

// y = e^x
struct ExpOp {
  float operator()(float x) const { return VecExp(x); }
  template <class T>
  T operator()(T x) const {
    return std::exp(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeExp(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, ExpOp{}); }

}  // namespace ptq
