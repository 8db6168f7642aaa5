// ConvInteger: y = sum((x - x_zero_point) * (w - w_zero_point)) in int32, on the int8 GEMM kernels
// (constant weights packed once; more than 3 spatial axes use the reference conv).
#include "runtime/ops/quantization/conv_integer.h"

#include <optional>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/int8_conv.h"
#include "runtime/kernels/conv/int_conv_reference.h"

namespace ptq {
namespace {

class ConvIntegerKernel : public Kernel {
 public:
  // A constant w with a constant (or absent) w_zero_point is packed here, once.
  explicit ConvIntegerKernel(const KernelInit& init) : attrs_(ReadConvAttributes(*init.attrs)) {
    const Tensor* w = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    const bool zp_absent = init.num_inputs <= 3;
    const Tensor* zp = zp_absent ? nullptr : init.const_inputs[3];
    if (w == nullptr || (!zp_absent && zp == nullptr) || w->rank() < 3 || w->dim(0) == 0) return;
    if (w->dtype() != DataType::kUint8 && w->dtype() != DataType::kInt8) return;
    if (attrs_.group < 1 || w->dim(0) % attrs_.group != 0) return;
    try {
      packed_ = PackInt8ConvWeights(*w, ReadChannelZeroPoints(zp, w->dtype(), w->dim(0), "w_zero_point"), attrs_.group);
    } catch (const Error&) {
      // Malformed constants: Run reports them with the node's name.
    }
  }

  // y[b, m, o] = sum_{c, k} (x[b, c', o * s - p + k * d] - x_zero_point) * (w[m, c, k] - w_zero_point[m])
  // (int_conv_reference.h states the exact indexing).
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(1);
    PTQ_ENFORCE(x.dtype() == DataType::kUint8 || x.dtype() == DataType::kInt8, "input 'x' has type ",
                DataTypeName(x.dtype()), "; expected uint8 or int8");
    PTQ_ENFORCE(w.dtype() == DataType::kUint8 || w.dtype() == DataType::kInt8, "input 'w' has type ",
                DataTypeName(w.dtype()), "; expected uint8 or int8");
    const ConvGeometry geometry = ResolveConvGeometry(attrs_, x.shape(), w.shape());
    const int32_t x_zero_point = ReadScalarZeroPoint(ctx.input(2), x.dtype(), "x_zero_point");
    const std::vector<int32_t> w_zero_points =
        ReadChannelZeroPoints(ctx.input(3), w.dtype(), geometry.out_channels, "w_zero_point");
    if (geometry.window.rank() > 3) {
      ctx.outputs[0] = IntConvReference(x, x_zero_point, w, w_zero_points, geometry);
      return;
    }
    const bool use_packed = packed_ && packed_->w_shape == w.shape() && packed_->dtype == w.dtype() &&
                            packed_->group == geometry.group;
    Tensor y = Tensor::Uninitialized(DataType::kInt32, geometry.output_shape());
    Int8Conv(x, x_zero_point, w, w_zero_points, geometry, use_packed ? &*packed_ : nullptr, nullptr,
             Int8Output::kInt32, nullptr, 0, y);
    ctx.outputs[0] = std::move(y);
  }

 private:
  ConvAttributes attrs_;
  std::optional<PackedInt8ConvWeights> packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConvInteger(const KernelInit& init) { return MakeKernel<ConvIntegerKernel>(init); }

}  // namespace ptq
