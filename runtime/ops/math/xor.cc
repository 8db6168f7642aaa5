// Xor kernel: C = A xor B for bool tensors with numpy broadcasting.
#include "runtime/ops/math/xor.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a != b
struct XorOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a != b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeXor(const KernelInit& init) {
  return MakeBinaryKernel<kBoolType>(init, XorOp{});
}

}  // namespace ptq
