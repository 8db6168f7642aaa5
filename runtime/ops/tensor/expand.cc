// Expand: broadcasts the input to shape (numpy rules in both directions: out = broadcast(input, shape)).
#include "runtime/ops/tensor/expand.h"

#include "runtime/ops/tensor/copy_util.h"
#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Expand : public Kernel {
 public:
  explicit Expand(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const Tensor& shape = ctx.required_input(1);
    PTQ_ENFORCE(shape.rank() == 1, "input 'shape' must be 1-D, got shape ", ShapeToString(shape.shape()));
    const Shape out_shape = BroadcastShapes(input.shape(), shape.ToInt64Vector());
    if (out_shape == input.shape()) {
      ctx.outputs[0] = input;
      return;
    }
    Tensor out(input.dtype(), out_shape);
    CopyStrided(input.raw(), 0, BroadcastStrides(input.shape(), out_shape), out_shape, ElementSize(input.dtype()),
                out.raw());
    ctx.outputs[0] = std::move(out);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeExpand(const KernelInit& init) { return MakeKernel<Expand>(init); }

}  // namespace ptq
