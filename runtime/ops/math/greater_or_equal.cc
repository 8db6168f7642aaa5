// GreaterOrEqual kernel: C = (A >= B) as bool with numpy broadcasting.
#include "runtime/ops/math/greater_or_equal.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a >= b
struct GreaterOrEqualOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a >= b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeGreaterOrEqual(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes, GreaterOrEqualOp, true>(init, GreaterOrEqualOp{});
}

}  // namespace ptq
