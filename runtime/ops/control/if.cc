// If kernel: outputs = (cond ? then_branch : else_branch)(); the branches take no inputs and read
// outer-scope tensors by name (captures). Tensor values only: sequence or optional outputs are refused.
#include "runtime/ops/control/if.h"

#include "runtime/ops/control/subgraph.h"

namespace ptq {
namespace {

class If : public Kernel {
 public:
  explicit If(const KernelInit& init) : then_(init, "then_branch"), else_(init, "else_branch") {
    for (const Subgraph* b : {&then_, &else_}) {
      const char* name = b == &then_ ? "then_branch" : "else_branch";
      PTQ_ENFORCE(b->num_inputs() == 0, "attribute '", name, "' must have no inputs, has ", b->num_inputs());
      PTQ_ENFORCE(b->num_outputs() == init.num_outputs, "attribute '", name, "' has ", b->num_outputs(),
                  " outputs; the node has ", init.num_outputs);
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& cond = ctx.required_input(0);
    PTQ_ENFORCE(cond.dtype() == DataType::kBool && cond.size() == 1, "input 'cond' must be one bool, got ",
                DataTypeName(cond.dtype()), " of shape ", ShapeToString(cond.shape()));
    // The byte, not a bool load: a model's bool tensor may hold any byte value (non-zero is true).
    Subgraph& branch = static_cast<const uint8_t*>(cond.raw())[0] != 0 ? then_ : else_;
    std::vector<Tensor> out = branch.Run({}, ctx);
    for (size_t i = 0; i < out.size(); ++i) ctx.outputs[i] = std::move(out[i]);
  }

 private:
  Subgraph then_;
  Subgraph else_;
};

}  // namespace

std::unique_ptr<Kernel> MakeIf(const KernelInit& init) { return MakeKernel<If>(init); }

}  // namespace ptq
