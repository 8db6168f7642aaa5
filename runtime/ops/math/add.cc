// Add kernel: C = A + B with numpy broadcasting, every numeric type.
#include "runtime/ops/math/add.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a + b (integers wrap)
struct AddOp {
  template <class T>
  T operator()(T a, T b) const {
    return WrapAdd(a, b);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeAdd(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes>(init, AddOp{});
}

}  // namespace ptq
