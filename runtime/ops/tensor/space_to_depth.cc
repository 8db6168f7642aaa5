// SpaceToDepth: [N, C, H, W] -> [N, C*b^2, H/b, W/b], moving b x b spatial blocks into channels.
#include "runtime/ops/tensor/space_to_depth.h"

#include "runtime/ops/tensor/copy_util.h"

namespace ptq {
namespace {

class SpaceToDepth : public Kernel {
 public:
  explicit SpaceToDepth(const KernelInit& init) : blocksize_(init.attrs->RequireInt("blocksize")) {}

  // reshape [N, C, H/b, b, W/b, b], transpose (0, 3, 5, 1, 2, 4), reshape [N, C*b*b, H/b, W/b].
  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    PTQ_ENFORCE(input.rank() == 4, "input must be 4-D (NCHW), got shape ", ShapeToString(input.shape()));
    const int64_t b = blocksize_;
    const int64_t n = input.dim(0), c = input.dim(1), h = input.dim(2), w = input.dim(3);
    PTQ_ENFORCE(b > 0 && h % b == 0 && w % b == 0, "height ", h, " and width ", w,
                " must be divisible by blocksize ", b);
    const Tensor moved = Transposed(input.Reshaped({n, c, h / b, b, w / b, b}), {0, 3, 5, 1, 2, 4});
    ctx.outputs[0] = moved.Reshaped({n, c * b * b, h / b, w / b});
  }

 private:
  int64_t blocksize_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSpaceToDepth(const KernelInit& init) { return MakeKernel<SpaceToDepth>(init); }

}  // namespace ptq
