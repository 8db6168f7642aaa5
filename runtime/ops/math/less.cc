// Less kernel: C = (A < B) as bool with numpy broadcasting.
#include "runtime/ops/math/less.h"

#include "runtime/ops/math/elementwise.h"

namespace ptq {
namespace {

// c = a < b
struct LessOp {
  template <class T>
  bool operator()(T a, T b) const {
    return a < b;
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeLess(const KernelInit& init) {
  return MakeBinaryKernel<kNumericTypes, LessOp, true>(init, LessOp{});
}

}  // namespace ptq
