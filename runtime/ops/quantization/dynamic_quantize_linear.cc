// DynamicQuantizeLinear kernel: computes uint8 scale and zero point from x's range, then quantizes x.
#include "runtime/ops/quantization/dynamic_quantize_linear.h"

#include <cmath>

#include "runtime/quant_math.h"

namespace ptq {

DynamicQuantizeResult DynamicQuantizeLinear(const Tensor& x) {
  PTQ_ENFORCE(x.dtype() == DataType::kFloat, "DynamicQuantizeLinear: x must be float32, got ", DataTypeName(x.dtype()));
  const float* xs = x.data<float>();
  const int64_t n = x.size();
  const int32_t qmin = QuantMin(DataType::kUint8);
  const int32_t qmax = QuantMax(DataType::kUint8);

  // x_min = min(0, min(x)), x_max = max(0, max(x)); NaN is skipped.
  float x_min = 0.0f;
  float x_max = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    if (xs[i] < x_min) x_min = xs[i];
    if (xs[i] > x_max) x_max = xs[i];
  }
  // y_scale = (x_max - x_min) / (qmax - qmin); a zero-width range gets kZeroWidthScale (1.0), which
  // is ONNX Runtime's choice (the spec's formula would give 0 / 0).
  const float scale = x_max == x_min ? kZeroWidthScale : (x_max - x_min) / static_cast<float>(qmax - qmin);
  // y_zero_point = saturate(round(qmin - x_min / y_scale)). With qmin = 0 this is
  // QuantizeValue(-x_min, y_scale, 0): (-x_min) / s == -(x_min / s) exactly in IEEE arithmetic.
  const int32_t zero_point = QuantizeValue(-x_min, scale, qmin, qmin, qmax);

  DynamicQuantizeResult r;
  r.y = Tensor(DataType::kUint8, x.shape());
  uint8_t* y = r.y.data<uint8_t>();
  // y = saturate(round(x / y_scale) + y_zero_point)
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<uint8_t>(QuantizeValue(xs[i], scale, zero_point, qmin, qmax));
  r.y_scale = Tensor::Scalar<float>(scale);
  r.y_zero_point = Tensor::Scalar<uint8_t>(static_cast<uint8_t>(zero_point));
  return r;
}

namespace {

class DynamicQuantizeLinearKernel : public Kernel {
 public:
  explicit DynamicQuantizeLinearKernel(const KernelInit&) {}

  void Run(KernelContext& ctx) override {
    DynamicQuantizeResult r = DynamicQuantizeLinear(ctx.required_input(0));
    ctx.outputs[0] = std::move(r.y);
    if (ctx.outputs.size() > 1) ctx.outputs[1] = std::move(r.y_scale);
    if (ctx.outputs.size() > 2) ctx.outputs[2] = std::move(r.y_zero_point);
  }
};

}  // namespace

std::unique_ptr<Kernel> MakeDynamicQuantizeLinear(const KernelInit& init) {
  return std::make_unique<DynamicQuantizeLinearKernel>(init);
}

}  // namespace ptq
