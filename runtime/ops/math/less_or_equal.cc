// LessOrEqual kernel: C = (A <= B) as bool with numpy broadcasting.
#include "runtime/ops/math/less_or_equal.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a <= b
struct LessOrEqualOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a <= b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeLessOrEqual(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes, LessOrEqualOp, true>(init, LessOrEqualOp{});
}

}  // namespace ptq
