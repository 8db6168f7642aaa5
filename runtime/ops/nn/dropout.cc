// Dropout at inference: output = input (a view); the optional mask output is all true (all ones
// of the input's type before opset 10). Training mode is not supported.
#include "runtime/ops/nn/dropout.h"

#include "runtime/ops/tensor/copy_util.h"

namespace ptq {
namespace {

class Dropout : public Kernel {
 public:
  // Before opset 7, the is_test attribute is ignored: ptq only runs inference. From opset 12 the
  // ratio input is ignored and a training_mode input that is true is an error.
  explicit Dropout(const KernelInit& init) : opset_(init.opset) {}

  void Run(KernelContext& ctx) override {
    const Tensor& data = ctx.required_input(0);
    if (opset_ >= 12 && ctx.input(2)) {
      const Tensor& training_mode = *ctx.input(2);
      PTQ_ENFORCE(training_mode.size() == 1, "input 'training_mode' must be a scalar, got shape ",
                  ShapeToString(training_mode.shape()));
      PTQ_ENFORCE(training_mode.GetAsDouble(0) == 0.0,
                  "input 'training_mode' is true; ptq runs inference only and does not apply dropout");
    }
    ctx.outputs[0] = data;
    if (ctx.outputs.size() > 1) {
      const DataType mask_type = opset_ >= 10 ? DataType::kBool : data.dtype();
      Tensor mask(mask_type, data.shape());
      unsigned char one[8];
      StoreScalar(mask_type, 1.0, one);
      FillElements(mask.raw(), mask.size(), one, ElementSize(mask_type));
      ctx.outputs[1] = std::move(mask);
    }
  }

 private:
  int opset_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDropout(const KernelInit& init) { return MakeKernel<Dropout>(init); }

}  // namespace ptq
