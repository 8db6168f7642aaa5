// Equal kernel: C = (A == B) as bool with numpy broadcasting.
#include "runtime/ops/math/equal.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a == b
struct EqualOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a == b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeEqual(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes | kBoolType, EqualOp, true>(init, EqualOp{});
}

}  // namespace ptq
