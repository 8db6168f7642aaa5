// Flatten: a 2-D view [prod(dims[:axis]), prod(dims[axis:])] of the input; axis in [-rank, rank].
#include "runtime/ops/tensor/flatten.h"

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Flatten : public Kernel {
 public:
  explicit Flatten(const KernelInit& init) : axis_(init.attrs->GetInt("axis", 1)) {}

  void Run(KernelContext& ctx) override {
    const Tensor& input = ctx.required_input(0);
    const int64_t rank = input.rank();
    PTQ_ENFORCE(axis_ >= -rank && axis_ <= rank, "attribute 'axis' ", axis_, " is out of range [", -rank,
                ", ", rank, "] for input of shape ", ShapeToString(input.shape()));
    const int64_t axis = axis_ < 0 ? axis_ + rank : axis_;
    ctx.outputs[0] = input.Reshaped({SizeOfRange(input.shape(), 0, axis), SizeOfRange(input.shape(), axis, rank)});
  }

 private:
  int64_t axis_;
};

}  // namespace

std::unique_ptr<Kernel> MakeFlatten(const KernelInit& init) { return MakeKernel<Flatten>(init); }

}  // namespace ptq
