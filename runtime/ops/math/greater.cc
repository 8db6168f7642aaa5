// Greater kernel: C = (A > B) as bool with numpy broadcasting.
#include "runtime/ops/math/greater.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a > b
struct GreaterOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a > b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeGreater(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes, GreaterOp, true>(init, GreaterOp{});
}

}  // namespace ptq
