// ConvInteger: y = sum((x - x_zero_point) * (w - w_zero_point)) in int32, via the reference conv.
#include "runtime/ops/conv_integer.h"

#include "runtime/ops/conv_geometry.h"
#include "runtime/ops/int_conv_reference.h"

namespace ptq {
namespace {

class ConvIntegerKernel : public Kernel {
 public:
  explicit ConvIntegerKernel(const KernelInit& init) : attrs_(ReadConvAttributes(*init.attrs)) {}

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
    ctx.outputs[0] = IntConvReference(x, x_zero_point, w, w_zero_points, geometry);
  }

 private:
  ConvAttributes attrs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeConvInteger(const KernelInit& init) { return MakeKernel<ConvIntegerKernel>(init); }

}  // namespace ptq
