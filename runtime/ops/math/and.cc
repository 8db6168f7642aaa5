// And kernel: C = A && B for bool tensors with numpy broadcasting.
#include "runtime/ops/math/and.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a && b
struct AndOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a && b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeAnd(const KernelInit& init) {
  return MakeBinaryKernel<kBoolType>(init, AndOp{});
}

}  // namespace ptq
