// Fused float-output integer ops: the integer kernel (weights packed once) runs, then one scaling pass.
#include "runtime/ops/quantization/integer_to_float.h"

#include <algorithm>
#include <string>
#include <vector>

#include "runtime/error.h"

namespace ptq {
namespace {

class IntegerToFloatKernel : public Kernel {
 public:
  IntegerToFloatKernel(const KernelInit& init, KernelFactory integer_op, const char* integer_name, int channel_axis)
      : channel_axis_(channel_axis) {
    KernelInit inner = init;
    inner.op_type = integer_name;
    inner.num_inputs = 4;
    inner.num_outputs = 1;
    inner.const_inputs.assign(4, nullptr);
    for (size_t i = 0; i < 4; ++i) {
      const size_t from = kIntegerInputs[i];
      if (from < init.const_inputs.size()) inner.const_inputs[i] = init.const_inputs[from];
    }
    integer_ = integer_op(inner);
  }

  void Run(KernelContext& ctx) override {
    KernelContext inner;
    for (size_t from : kIntegerInputs) inner.inputs.push_back(ctx.input(static_cast<int>(from)));
    inner.outputs.resize(1);
    integer_->Run(inner);
    const Tensor& acc = inner.outputs[0];
    const Tensor& a_scale = ctx.required_input(2);
    const Tensor& b_scale = ctx.required_input(3);
    const Tensor* bias = ctx.input(6);
    PTQ_ENFORCE(a_scale.dtype() == DataType::kFloat && a_scale.size() == 1, "input 'a_scale' must be one float32 value");
    const int64_t axis = channel_axis_ < 0 ? acc.rank() + channel_axis_ : channel_axis_;
    PTQ_ENFORCE(axis >= 0 && axis < acc.rank(), "the result has rank ", acc.rank(), "; no channel axis ", channel_axis_);
    const int64_t channels = acc.dim(axis);
    PTQ_ENFORCE(b_scale.dtype() == DataType::kFloat && (b_scale.size() == 1 || b_scale.size() == channels),
                "input 'b_scale' must hold 1 or ", channels, " float32 values, has shape ", ShapeToString(b_scale.shape()));
    PTQ_ENFORCE(!bias || (bias->dtype() == DataType::kFloat && bias->size() == channels), "input 'bias' must hold ",
                channels, " float32 values");
    std::vector<float> scale(static_cast<size_t>(channels));
    const float as = a_scale.data<float>()[0];
    for (int64_t c = 0; c < channels; ++c) scale[c] = as * b_scale.data<float>()[b_scale.size() == 1 ? 0 : c];
    int64_t inner_size = 1;
    for (int64_t d = axis + 1; d < acc.rank(); ++d) inner_size *= acc.dim(d);
    const int64_t outer = channels == 0 || inner_size == 0 ? 0 : acc.size() / (channels * inner_size);
    Tensor y = Tensor::Uninitialized(DataType::kFloat, acc.shape());
    const int32_t* a = acc.data<int32_t>();
    float* out = y.data<float>();
    std::vector<float> add(static_cast<size_t>(channels), 0.0f);
    if (bias) std::copy(bias->data<float>(), bias->data<float>() + channels, add.begin());
    const float* s = scale.data();
    const float* b = add.data();
    if (inner_size == 1) {  // channels last (MatMul): one pass per row over the channels
      for (int64_t o = 0; o < outer; ++o) {
        const int32_t* row = a + o * channels;
        float* dst = out + o * channels;
        for (int64_t c = 0; c < channels; ++c) dst[c] = static_cast<float>(row[c]) * s[c] + b[c];
      }
    } else {
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t c = 0; c < channels; ++c) {
          const int64_t base = (o * channels + c) * inner_size;
          const float sc = s[c], bc = b[c];
          for (int64_t i = 0; i < inner_size; ++i) out[base + i] = static_cast<float>(a[base + i]) * sc + bc;
        }
      }
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  // The inputs of the integer op (A, B, a_zero_point, b_zero_point) among the fused op's.
  static constexpr size_t kIntegerInputs[4] = {0, 1, 4, 5};
  int channel_axis_;
  std::unique_ptr<Kernel> integer_;
};

}  // namespace

std::unique_ptr<Kernel> MakeIntegerToFloat(const KernelInit& init, KernelFactory integer_op, const char* integer_name,
                                           int channel_axis) {
  return std::make_unique<IntegerToFloatKernel>(init, integer_op, integer_name, channel_axis);
}

}  // namespace ptq
