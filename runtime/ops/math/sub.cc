// Sub kernel: C = A - B with numpy broadcasting, every numeric type.
#include "runtime/ops/math/sub.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a - b (integers wrap)
struct SubOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapSub(a, b);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeSub(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes>(init, SubOp{});
}

}  // namespace ptq
