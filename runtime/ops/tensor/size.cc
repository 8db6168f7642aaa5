// Size: the input's element count as an int64 scalar.
#include "runtime/ops/tensor/size.h"

namespace ptq {
namespace {

class Size : public Kernel {
 public:
  explicit Size(const KernelInit&) {}
  void Run(KernelContext& ctx) override { ctx.outputs[0] = Tensor::Scalar<int64_t>(ctx.required_input(0).size()); }
};

}  // namespace

std::unique_ptr<Kernel> MakeSize(const KernelInit& init) { return MakeKernel<Size>(init); }

}  // namespace ptq
