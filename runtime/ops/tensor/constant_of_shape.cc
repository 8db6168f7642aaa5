// ConstantOfShape: a tensor of the given shape filled with the 'value' attribute (float32 0 by default).
#include "runtime/ops/tensor/constant_of_shape.h"

#include <cstring>

#include "runtime/ops/tensor/copy_util.h"

namespace ptq {
namespace {

class ConstantOfShape : public Kernel {
 public:
  explicit ConstantOfShape(const KernelInit& init) {
    if (const Tensor* v = init.attrs->GetTensor("value")) {
      PTQ_ENFORCE(v->size() == 1, "attribute 'value' must hold one element, got shape ", ShapeToString(v->shape()));
      value_ = *v;
    } else {
      value_ = Tensor::Scalar<float>(0.0f);
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& shape = ctx.required_input(0);
    PTQ_ENFORCE(shape.rank() == 1, "input 'input' (the shape) must be 1-D, got shape ", ShapeToString(shape.shape()));
    Tensor out(value_.dtype(), shape.ToInt64Vector());
    FillElements(out.raw(), out.size(), value_.raw(), ElementSize(value_.dtype()));
    ctx.outputs[0] = std::move(out);
  }

 private:
  Tensor value_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConstantOfShape(const KernelInit& init) { return MakeKernel<ConstantOfShape>(init); }

}  // namespace ptq
