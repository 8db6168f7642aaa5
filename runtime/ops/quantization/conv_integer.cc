// ConvInteger: y = sum((x - x_zero_point) * (w - w_zero_point)) in int32, on the int8 GEMM kernels
// (constant weights packed once; more than 3 spatial axes use the reference conv).
#include "runtime/ops/quantization/conv_integer.h"

#include <optional>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/int8_conv.h"
#include "runtime/kernels/conv/int_conv_reference.h"
#include "runtime/kernels/vector/residual_row.h"
#include "runtime/ops/nn/conv_activation.h"
#include "runtime/ops/quantization/constant_params.h"
#include "runtime/ops/quantization/integer_to_float.h"
#include "runtime/ops/quantization/quantize_linear.h"
#include "runtime/channels_last_layout.h"

namespace ptq {
namespace {

// The inputs ConvIntegerParams are read from (w for its channels and type).
std::vector<int> ParamInputs(bool to_float) {
  if (!to_float) return {1, 2, 3};
  return {1, 2, 3, kToFloatAZeroPoint, kToFloatBZeroPoint, 6, kToFloatYScale, kToFloatYZeroPoint};
}

// The run's zero points, float scaling and output quantization, from the inputs after x and w for x of type x_type
// (any, when x has no zero point) and `channels` output channels of w_type weights; input errors name the input.
struct ConvIntegerParams {
  DataType x_type = DataType::kUndefined;
  int64_t channels = 0;
  int32_t x_zero_point = 0;
  std::vector<int32_t> w_zero_points;
  FloatScaling scaling;                // ConvIntegerToFloat
  std::optional<Quantize8> quantized;  // the QuantizeLinear of the output (y_scale, y_zero_point), when given
};

ConvIntegerParams ReadParams(const KernelContext& ctx, bool to_float, int x_zp, int w_zp, DataType x_type,
                             DataType w_type, int64_t channels) {
  ConvIntegerParams p;
  p.x_type = ctx.input(x_zp) != nullptr ? x_type : DataType::kUndefined;
  p.channels = channels;
  p.x_zero_point = ReadScalarZeroPoint(ctx.input(x_zp), x_type, "x_zero_point");
  p.w_zero_points = ReadChannelZeroPoints(ctx.input(w_zp), w_type, channels, "w_zero_point");
  if (!to_float) return p;
  p.scaling = ReadFloatScaling(ctx, channels);
  if (const Tensor* y_scale = ctx.input(kToFloatYScale)) {
    p.quantized = ReadQuantize8(*y_scale, ctx.required_input(kToFloatYZeroPoint), "ConvIntegerToFloat");
  }
  return p;
}

class ConvIntegerKernel : public Kernel {
 public:
  // A constant w with a constant (or absent) w_zero_point is packed here, once.
  ConvIntegerKernel(const KernelInit& init, bool to_float)
      : attrs_(ReadConvAttributes(*init.attrs)),
        to_float_(to_float),
        channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0),
        x_zp_(to_float ? kToFloatAZeroPoint : 2),
        w_zp_(to_float ? kToFloatBZeroPoint : 3),
        params_(init, ParamInputs(to_float), [&](const KernelContext& c) {
          const Tensor& w = c.required_input(1);
          PTQ_ENFORCE(w.rank() >= 1, "input 'w' is a scalar");
          const Tensor* x_zp = c.input(x_zp_);
          return ReadParams(c, to_float_, x_zp_, w_zp_, x_zp != nullptr ? x_zp->dtype() : DataType::kUint8, w.dtype(),
                            w.dim(0));
        }) {
    // ConvIntegerToFloat [-> Add of a residual] -> Relu / Clip or SiLU [-> element-wise chain], fused by the session
    // (float_fusion.h): applied to each block of outputs as it is stored, the same bits as the nodes.
    act_ = to_float ? ReadConvActivation(*init.attrs, "ConvIntegerToFloat") : ConvActivation{};
    if (act_.clamp || act_.silu || !act_.chain.empty()) {
      finish_ = [act = act_](float* row, int64_t n) { ApplyActivation(act, row, n); };
    }
    const Tensor* w = init.const_inputs.size() > 1 ? init.const_inputs[1] : nullptr;
    const bool zp_absent = init.num_inputs <= w_zp_;
    const Tensor* zp = zp_absent ? nullptr : init.const_inputs[static_cast<size_t>(w_zp_)];
    if (w == nullptr || (!zp_absent && zp == nullptr) || w->rank() < 3 || w->dim(0) == 0) return;
    if (w->dtype() != DataType::kUint8 && w->dtype() != DataType::kInt8) return;
    if (attrs_.group < 1 || w->dim(0) % attrs_.group != 0) return;
    try {
      packed_ = PackInt8ConvWeights(*w, ReadChannelZeroPoints(zp, w->dtype(), w->dim(0), "w_zero_point"), attrs_.group,
                                    channels_last_);
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
    const ConvGeometry geometry = channels_last_ ? ResolveConvGeometryChannelsLast(attrs_, x.shape(), w.shape())
                                                 : ResolveConvGeometry(attrs_, x.shape(), w.shape());
    const ConvIntegerParams* params = params_.Get(ctx);
    ConvIntegerParams read;
    if (params == nullptr || (params->x_type != DataType::kUndefined && params->x_type != x.dtype()) ||
        params->channels != geometry.out_channels) {
      read = ReadParams(ctx, to_float_, x_zp_, w_zp_, x.dtype(), w.dtype(), geometry.out_channels);
      params = &read;
    }
    const int32_t x_zero_point = params->x_zero_point;
    const std::vector<int32_t>& w_zero_points = params->w_zero_points;
    const FloatScaling& scaling = params->scaling;
    const std::optional<Quantize8>& quantized = params->quantized;
    const Tensor* z = to_float_ ? ctx.input(kToFloatResidual) : nullptr;
    if (z != nullptr) {
      PTQ_ENFORCE(z->dtype() == DataType::kFloat, "input 'residual' has type ", DataTypeName(z->dtype()),
                  "; expected float32");
    }
    if (geometry.window.rank() > 3) {
      Tensor acc = IntConvReference(x, x_zero_point, w, w_zero_points, geometry);
      ctx.outputs[0] = to_float_ ? ScaleChannels(acc, scaling) : std::move(acc);
      Finish(z, &ctx.outputs[0]);
      if (quantized) ctx.outputs[0] = QuantizeAll(ctx.outputs[0], *quantized);
      return;
    }
    const bool use_packed = packed_ && packed_->w_shape == w.shape() && packed_->dtype == w.dtype() &&
                            packed_->group == geometry.group;
    Tensor y = Tensor::Uninitialized(to_float_ ? DataType::kFloat : DataType::kInt32, geometry.output_shape());
    // Applied to each block of outputs as it is stored: the activation alone, or a residual of y's shape then the
    // activation. A residual that broadcasts is added, then the activation applied, in passes after.
    const bool in_store = z == nullptr || z->shape() == y.shape();
    FloatRowFinish with_residual;
    if (z != nullptr && in_store) {
      with_residual = [act = act_, z_at_y = z->data<float>(), y_begin = y.data<float>()](float* out, int64_t n) {
        AddResidualRow(out, z_at_y + (out - y_begin), n, act.clamp, act.lo, act.hi);
        FinishActivation(act, out, n);
      };
    }
    const FloatRowFinish* finish = z == nullptr ? (finish_ ? &finish_ : nullptr) : in_store ? &with_residual : nullptr;
    // With y_scale: each finished block quantized into q while in cache. Without a residual (whose place in y the
    // finish reads) the float values go to the quantization from the kernels' own buffer and y is never written
    // (FloatRowSink): stored, they went to memory and back, 4 bytes an output. Else y is scratch.
    Tensor q;
    FloatRowFinish then_quantize;
    FloatRowSink quantize;
    const FloatRowSink* sink = nullptr;
    if (quantized && in_store) {
      q = Tensor::Uninitialized(quantized->type, y.shape());
      quantize = [&q8 = *quantized, y_begin = y.data<float>(), q_begin = static_cast<uint8_t*>(q.raw())](
                     const float* values, int64_t n, const float* at) {
        QuantizeRun8(values, n, q8, q_begin + (at - y_begin));
      };
      if (z == nullptr) {
        sink = &quantize;
      } else {
        then_quantize = [first = finish, &quantize](float* out, int64_t n) {
          (*first)(out, n);
          quantize(out, n, out);
        };
        finish = &then_quantize;
      }
    }
    Int8Conv(x, x_zero_point, w, w_zero_points, geometry, use_packed ? &*packed_ : nullptr, nullptr,
             to_float_ ? Int8Output::kFloat : Int8Output::kInt32, to_float_ ? scaling.multiplier.data() : nullptr, 0,
             y, to_float_ ? scaling.bias.data() : nullptr, finish, sink);
    if (!in_store) Finish(z, &y);
    if (quantized) {
      ctx.outputs[0] = in_store ? std::move(q) : QuantizeAll(y, *quantized);
      return;
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  // float(acc) * multiplier[m] + bias[m] over acc [N, M, ...] (the reference path of more than 3 axes).
  static Tensor ScaleChannels(const Tensor& acc, const FloatScaling& s) {
    Tensor y = Tensor::Uninitialized(DataType::kFloat, acc.shape());
    const int64_t channels = acc.dim(1), plane = channels == 0 ? 0 : acc.size() / (acc.dim(0) * channels);
    for (int64_t i = 0; i < acc.size(); ++i) {
      const size_t m = static_cast<size_t>((i / plane) % channels);
      y.data<float>()[i] = static_cast<float>(acc.data<int32_t>()[i]) * s.multiplier[m] + s.bias[m];
    }
    return y;
  }

  // y quantized whole.
  static Tensor QuantizeAll(const Tensor& y, const Quantize8& quantized) {
    Tensor q = Tensor::Uninitialized(quantized.type, y.shape());
    QuantizeRun8(y.data<float>(), y.size(), quantized, q.raw());
    return q;
  }

  // The residual z (if any), then the activation, over the whole float output y.
  void Finish(const Tensor* z, Tensor* y) const {
    if (z != nullptr) {
      *y = AddAndActivate(std::move(*y), *z, act_, "residual");
    } else if (finish_) {
      finish_(y->data<float>(), y->size());
    }
  }

  ConvAttributes attrs_;
  ConvActivation act_;  // the fused activation (ConvIntegerToFloat)
  bool to_float_;
  bool channels_last_;  // ConvIntegerToFloat of the session's channels-last layout
  int x_zp_, w_zp_;  // the zero points' input indices
  ConstantParams<ConvIntegerParams> params_;
  std::optional<PackedInt8ConvWeights> packed_;
  FloatRowFinish finish_;  // the fused activation, or empty
};

}  // namespace

std::unique_ptr<Kernel> MakeConvIntegerKernel(const KernelInit& init, bool to_float) {
  return std::make_unique<ConvIntegerKernel>(init, to_float);
}

std::unique_ptr<Kernel> MakeConvInteger(const KernelInit& init) { return MakeConvIntegerKernel(init, false); }

}  // namespace ptq
