// Greater kernel: C = (A > B) as bool with numpy broadcasting.
#include "runtime/ops/greater.h"

#include "runtime/ops/elementwise.h"

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
