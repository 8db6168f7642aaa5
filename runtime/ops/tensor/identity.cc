// Identity: the output is the input (same buffer; tensors are values, so nothing is copied).
#include "runtime/ops/tensor/identity.h"

namespace ptq {
namespace {

class Identity : public Kernel {
 public:
  explicit Identity(const KernelInit&) {}
  void Run(KernelContext& ctx) override { ctx.outputs[0] = ctx.required_input(0); }
};

}  // namespace

std::unique_ptr<Kernel> MakeIdentity(const KernelInit& init) { return MakeKernel<Identity>(init); }

}  // namespace ptq
