// Tanh kernel: Y = tanh(X) on float types (vectorised for float32).
#include "runtime/ops/math/tanh.h"

#include <cmath>

#include "runtime/ops/math/elementwise.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

// y = tanh(x)
struct TanhOp {
  float operator()(float x) const { return VecTanh(x); }
  template <class T>
  T operator()(T x) const {
    return std::tanh(x);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeTanh(const KernelInit& init) { return MakeUnaryKernel<kFloatTypes>(init, TanhOp{}); }

}  // namespace ptq
