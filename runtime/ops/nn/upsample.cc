// Upsample kernel: scales from attribute 'scales' (opsets 7-8) or input 'scales' (opset 9);
// y_dim = floor(scale * x_dim); asymmetric coordinates (x / scale), nearest truncates.
#include "runtime/ops/nn/upsample.h"

#include <string>
#include <vector>

#include "runtime/ops/nn/interpolate.h"

namespace ptq {
namespace {

class Upsample final : public Kernel {
 public:
  explicit Upsample(const KernelInit& init) : opset_(init.opset) {
    spec_.mode = ParseInterpMode(init.attrs->GetString("mode", "nearest"), "Upsample");
    PTQ_ENFORCE(spec_.mode != InterpMode::kCubic,
                "Upsample: attribute 'mode' is 'cubic'; Upsample has nearest and linear");
    spec_.coord = CoordMode::kAsymmetric;
    spec_.nearest = NearestMode::kSimple;
    if (opset_ < 9) {
      PTQ_ENFORCE(init.attrs->Has("scales"), "Upsample: attribute 'scales' is required at opset ", opset_);
      scales_attr_ = init.attrs->GetFloats("scales");
    }
  }

  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    std::vector<float> scales = scales_attr_;
    if (opset_ >= 9) {
      const Tensor& s = ctx.required_input(1);
      scales.clear();
      for (int64_t i = 0; i < s.size(); ++i) scales.push_back(static_cast<float>(s.GetAsDouble(i)));
    }
    PTQ_ENFORCE(static_cast<int64_t>(scales.size()) == x.rank(), "Upsample: 'scales' has ", scales.size(),
                " values; expected one per axis of input 'X' (rank ", x.rank(), ")");
    Shape out_shape = x.shape();
    for (size_t a = 0; a < scales.size(); ++a) {
      PTQ_ENFORCE(scales[a] >= 1.0f, "Upsample: scale ", scales[a], " for axis ", a, " is below 1");
      out_shape[a] = static_cast<int64_t>(scales[a] * static_cast<float>(out_shape[a]));
    }
    std::vector<float> roi(2 * scales.size(), 0.0f);
    ctx.outputs[0] = Interpolate(x, out_shape, scales, roi, spec_, "Upsample");
  }

 private:
  int opset_;
  InterpSpec spec_;
  std::vector<float> scales_attr_;
};

}  // namespace

std::unique_ptr<Kernel> MakeUpsample(const KernelInit& init) { return MakeKernel<Upsample>(init); }

}  // namespace ptq
