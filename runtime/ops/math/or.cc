// Or kernel: C = A || B for bool tensors with numpy broadcasting.
#include "runtime/ops/math/or.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a || b
struct OrOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a || b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeOr(const KernelInit& init) {
  return MakeBinaryKernel<kBoolType>(init, OrOp{});
}

}  // namespace ptq
