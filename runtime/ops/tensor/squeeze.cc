// Squeeze: a view of the input without the listed size-1 axes (all size-1 axes when none are given).
#include "runtime/ops/tensor/squeeze.h"

#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Squeeze : public Kernel {
 public:
  // axes: an attribute before opset 13, an optional input from 13; absent or empty means every
  // size-1 axis.
  explicit Squeeze(const KernelInit& init) : opset_(init.opset) {
    if (opset_ < 13) axes_attr_ = init.attrs->GetInts("axes");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const int64_t rank = data.rank();
    const std::vector<int64_t> axes = opset_ >= 13 && ctx.input(1) ? ctx.input(1)->ToInt64Vector() : axes_attr_;
    std::vector<bool> drop(static_cast<size_t>(rank), false);
    if (!axes.empty()) {
      for (int64_t a : axes) {
        const int64_t axis = NormalizeAxis(a, rank);
        PTQ_ENFORCE(data.dim(axis) == 1, "cannot squeeze axis ", a, " of size ", data.dim(axis),
                    " (input shape ", ShapeToString(data.shape()), ")");
        drop[static_cast<size_t>(axis)] = true;
      }
    } else {
      for (int64_t i = 0; i < rank; ++i) drop[static_cast<size_t>(i)] = data.dim(i) == 1;
    }
    Shape out;
    for (int64_t i = 0; i < rank; ++i) {
      if (!drop[static_cast<size_t>(i)]) out.push_back(data.dim(i));
    }
    ctx.outputs[0] = data.Reshaped(out);
  }

 private:
  int opset_;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeSqueeze(const KernelInit& init) { return MakeKernel<Squeeze>(init); }

}  // namespace ptq
