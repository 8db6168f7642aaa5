// Not kernel: Y = !X for bool tensors.
#include "runtime/ops/math/not.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// y = !x
struct NotOp {
  template <class T>
  T operator()(T x) const {
    return !x;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeNot(const KernelInit& init) { return MakeUnaryKernel<kBoolType>(init, NotOp{}); }

}  // namespace ptq
