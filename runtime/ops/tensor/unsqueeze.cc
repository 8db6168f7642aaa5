// Unsqueeze: a view of the input with size-1 dimensions inserted at the given axes of the output.
#include "runtime/ops/tensor/unsqueeze.h"

#include <vector>

#include "runtime/shape_util.h"

namespace ptq {
namespace {

class Unsqueeze : public Kernel {
 public:
  // axes: a required attribute before opset 13, a required input from 13. Axes index the output
  // (rank = input rank + number of axes); negative axes count from its end.
  explicit Unsqueeze(const KernelInit& init) : opset_(init.opset) {
    if (opset_ < 13) axes_attr_ = init.attrs->RequireInts("axes");
  }

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    const std::vector<int64_t> axes = opset_ < 13 ? axes_attr_ : ctx.required_input(1).ToInt64Vector();
    const int64_t out_rank = data.rank() + static_cast<int64_t>(axes.size());
    std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
    for (int64_t a : axes) {
      const int64_t axis = NormalizeAxis(a, out_rank);
      PTQ_ENFORCE(!inserted[static_cast<size_t>(axis)], "'axes' lists axis ", a, " twice");
      inserted[static_cast<size_t>(axis)] = true;
    }
    Shape out(static_cast<size_t>(out_rank));
    int64_t next = 0;
    for (int64_t i = 0; i < out_rank; ++i) {
      out[static_cast<size_t>(i)] = inserted[static_cast<size_t>(i)] ? 1 : data.dim(next++);
    }
    ctx.outputs[0] = data.Reshaped(out);
  }

 private:
  int opset_;
  std::vector<int64_t> axes_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeUnsqueeze(const KernelInit& init) { return MakeKernel<Unsqueeze>(init); }

}  // namespace ptq
