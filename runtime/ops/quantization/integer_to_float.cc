// ReadFloatScaling: the scales and float bias of the fused float-output integer ops, checked.
#include "runtime/ops/quantization/integer_to_float.h"

#include "runtime/error.h"

namespace ptq {

FloatScaling ReadFloatScaling(const KernelContext& ctx, int64_t channels, int64_t copies) {
  const Tensor& a_scale = ctx.required_input(2);
  const Tensor& b_scale = ctx.required_input(3);
  const Tensor* bias = ctx.input(6);
  PTQ_ENFORCE(a_scale.dtype() == DataType::kFloat && a_scale.size() == 1, "input 'a_scale' must be one float32 value");
  PTQ_ENFORCE(b_scale.dtype() == DataType::kFloat && (b_scale.size() == 1 || b_scale.size() == channels),
              "input 'b_scale' must hold 1 or ", channels, " float32 values, has shape ", ShapeToString(b_scale.shape()));
  PTQ_ENFORCE(!bias || (bias->dtype() == DataType::kFloat && bias->size() == channels), "input 'bias' must hold ",
              channels, " float32 values, has shape ", ShapeToString(bias ? bias->shape() : Shape{}));
  FloatScaling s;
  s.multiplier.resize(static_cast<size_t>(channels * copies));
  s.bias.resize(static_cast<size_t>(channels * copies), 0.0f);
  const float as = a_scale.data<float>()[0];
  for (int64_t j = 0; j < copies; ++j) {
    for (int64_t c = 0; c < channels; ++c) {
      const size_t at = static_cast<size_t>(j * channels + c);
      s.multiplier[at] = as * b_scale.data<float>()[b_scale.size() == 1 ? 0 : c];
      if (bias) s.bias[at] = bias->data<float>()[c];
    }
  }
  return s;
}

}  // namespace ptq
