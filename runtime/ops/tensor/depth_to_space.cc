// DepthToSpace: [N, C, H, W] -> [N, C/b^2, H*b, W*b], moving channel blocks into b x b spatial blocks.
#include "runtime/ops/tensor/depth_to_space.h"

#include <string>

#include "runtime/ops/tensor/copy_util.h"

namespace ptq {
namespace {

class DepthToSpace : public Kernel {
 public:
  // mode (opset 11+): DCR (default) or CRD.
  explicit DepthToSpace(const KernelInit& init) : blocksize_(init.attrs->RequireInt("blocksize")) {
    const std::string mode = init.opset >= 11 ? init.attrs->GetString("mode", "DCR") : "DCR";
    PTQ_ENFORCE(mode == "DCR" || mode == "CRD", "attribute 'mode' is '", mode, "', expected DCR or CRD");
    crd_ = mode == "CRD";
  }

  // DCR: reshape [N, b, b, C', H, W], transpose (0, 3, 4, 1, 5, 2);
  // CRD: reshape [N, C', b, b, H, W], transpose (0, 1, 4, 2, 5, 3); then reshape [N, C', H*b, W*b].
  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    PTQ_ENFORCE(input.rank() == 4, "input must be 4-D (NCHW), got shape ", ShapeToString(input.shape()));
    const int64_t b = blocksize_;
    const int64_t n = input.dim(0), c = input.dim(1), h = input.dim(2), w = input.dim(3);
    PTQ_ENFORCE(b > 0 && c % (b * b) == 0, "channels ", c, " are not divisible by blocksize^2 (blocksize ", b, ")");
    const int64_t c2 = c / (b * b);
    const Tensor view = crd_ ? input.Reshaped({n, c2, b, b, h, w}) : input.Reshaped({n, b, b, c2, h, w});
    const Tensor moved = crd_ ? Transposed(view, {0, 1, 4, 2, 5, 3}) : Transposed(view, {0, 3, 4, 1, 5, 2});
    ctx.outputs[0] = moved.Reshaped({n, c2, h * b, w * b});
  }

 private:
  int64_t blocksize_;
  bool crd_ = false;
};

}  // namespace

std::unique_ptr<Kernel> MakeDepthToSpace(const KernelInit& init) { return MakeKernel<DepthToSpace>(init); }

}  // namespace ptq
