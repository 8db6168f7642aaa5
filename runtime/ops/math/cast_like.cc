// CastLike kernel: casts input 0 to the element type of input 1 ('target_type'), by Cast's rules.
#include "runtime/ops/math/cast_like.h"

#include "runtime/ops/math/cast.h"

namespace ptq {
namespace {

// output = Cast(input, to = type of target_type); only target_type's type is read.
class CastLikeKernel final : public Kernel {
 public:
  explicit CastLikeKernel(const KernelInit&) {}
  void Run(KernelContext& ctx) override {
    ctx.outputs[0] = CastTensor(ctx.required_input(0), ctx.required_input(1).dtype());
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeCastLike(const KernelInit& init) { return std::make_unique<CastLikeKernel>(init); }

}  // namespace ptq
