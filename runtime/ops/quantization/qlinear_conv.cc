// QLinearConv: integer convolution plus bias, requantized per output channel, on the int8 GEMM kernels
// (constant weights packed once, when the session is prepared; more than 3 spatial axes use the reference conv).
#include "runtime/ops/quantization/qlinear_conv.h"

#include <optional>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/int8_conv.h"
#include "runtime/kernels/conv/int_conv_reference.h"
#include "runtime/ops/quantization/constant_params.h"
#include "runtime/channels_last_layout.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

bool IsInt8Type(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// The float32 values of a scale input: one value when it must be a scalar (channels == 0), else a
// scalar or a 1-D tensor of 1 or `channels` values.
std::vector<float> ReadScales(const Tensor& t, int64_t channels, const char* name) {
  PTQ_ENFORCE(t.dtype() == DataType::kFloat, "input '", name, "' has type ", DataTypeName(t.dtype()),
              "; expected float32");
  const bool ok = t.rank() <= 1 && (t.size() == 1 || (channels > 0 && t.size() == channels));
  if (channels == 0) {
    PTQ_ENFORCE(ok, "input '", name, "' has shape ", ShapeToString(t.shape()), "; expected a scalar");
  } else {
    PTQ_ENFORCE(ok, "input '", name, "' has shape ", ShapeToString(t.shape()),
                "; expected a scalar or a 1-D tensor of ", channels, " values (one per output channel)");
  }
  const float* p = t.data<float>();
  return std::vector<float>(p, p + t.size());
}

template <class T>
void Requantize(const int32_t* acc, int64_t batch, int64_t channels, int64_t plane,
                const std::vector<float>& multipliers, int32_t y_zero_point, Tensor& y) {
  T* out = y.data<T>();
  const int32_t qmin = QuantMin(y.dtype());
  const int32_t qmax = QuantMax(y.dtype());
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t m = 0; m < channels; ++m) {
      const float multiplier = multipliers[static_cast<size_t>(m)];
      const int64_t base = (b * channels + m) * plane;
      for (int64_t i = 0; i < plane; ++i) {
        out[base + i] = static_cast<T>(RequantizeValue(acc[base + i], multiplier, y_zero_point, qmin, qmax));
      }
    }
  }
}

// The requantization's parameters, from inputs 1, 2 and 4-8 for x of type x_type and `channels` output channels
// of w_type weights; input errors name the input.
struct QLinearConvParams {
  DataType x_type = DataType::kUndefined;
  int64_t channels = 0;
  int32_t x_zero_point = 0;
  std::vector<int32_t> w_zero_points;
  std::vector<float> multipliers;  // float(x_scale * w_scale[m]) / y_scale, as ONNX Runtime computes it
  int32_t y_zero_point = 0;
};

QLinearConvParams ReadParams(const KernelContext& ctx, DataType x_type, DataType w_type, int64_t channels) {
  QLinearConvParams p;
  p.x_type = x_type;
  p.channels = channels;
  const Tensor& y_zp = ctx.required_input(7);
  PTQ_ENFORCE(IsInt8Type(y_zp.dtype()), "input 'y_zero_point' has type ", DataTypeName(y_zp.dtype()),
              "; expected uint8 or int8");
  const float x_scale = ReadScales(ctx.required_input(1), 0, "x_scale")[0];
  p.x_zero_point = ReadScalarZeroPoint(&ctx.required_input(2), x_type, "x_zero_point");
  const std::vector<float> w_scales = ReadScales(ctx.required_input(4), channels, "w_scale");
  p.w_zero_points = ReadChannelZeroPoints(&ctx.required_input(5), w_type, channels, "w_zero_point");
  const float y_scale = ReadScales(ctx.required_input(6), 0, "y_scale")[0];
  p.y_zero_point = ReadScalarZeroPoint(&y_zp, y_zp.dtype(), "y_zero_point");
  const Tensor* bias = ctx.input(8);
  if (bias != nullptr) {
    PTQ_ENFORCE(bias->dtype() == DataType::kInt32, "input 'B' has type ", DataTypeName(bias->dtype()),
                "; expected int32");
    PTQ_ENFORCE(bias->rank() == 1 && bias->dim(0) == channels, "input 'B' has shape ", ShapeToString(bias->shape()),
                "; expected [", channels, "] (one value per output channel)");
  }
  p.multipliers.resize(static_cast<size_t>(channels));
  for (int64_t m = 0; m < channels; ++m) {
    const float w_scale = w_scales.size() == 1 ? w_scales[0] : w_scales[static_cast<size_t>(m)];
    p.multipliers[static_cast<size_t>(m)] = RequantMultiplier(x_scale, w_scale, y_scale);
  }
  return p;
}

class QLinearConvKernel : public Kernel {
 public:
  // Constant w and w_zero_point are packed here, once; constant scales and zero points read here, once.
  explicit QLinearConvKernel(const KernelInit& init)
      : attrs_(ReadConvAttributes(*init.attrs)),
        channels_last_(init.attrs->GetInt(kChannelsLast, 0) != 0),
        params_(init, {1, 2, 3, 4, 5, 6, 7, 8}, [](const KernelContext& c) {
          const Tensor& w = c.required_input(3);
          PTQ_ENFORCE(w.rank() >= 1, "input 'w' is a scalar");
          return ReadParams(c, c.required_input(2).dtype(), w.dtype(), w.dim(0));
        }) {
    const Tensor* w = init.const_inputs.size() > 5 ? init.const_inputs[3] : nullptr;
    const Tensor* zp = init.const_inputs.size() > 5 ? init.const_inputs[5] : nullptr;
    if (w == nullptr || zp == nullptr || !IsInt8Type(w->dtype()) || w->rank() < 3 || w->dim(0) == 0) return;
    if (attrs_.group < 1 || w->dim(0) % attrs_.group != 0) return;
    try {
      packed_ = PackInt8ConvWeights(*w, ReadChannelZeroPoints(zp, w->dtype(), w->dim(0), "w_zero_point"), attrs_.group,
                                    channels_last_);
    } catch (const Error&) {
      // Malformed constants: Run reports them with the node's name.
    }
  }

  // acc[b, m, o] = sum_{c, k} (x - x_zero_point) * (w - w_zero_point[m]) + B[m]   (int32, wrapping)
  // y[b, m, o] = saturate(round_half_even(float(acc) * multiplier[m]) + y_zero_point)
  // multiplier[m] = float(x_scale * w_scale[m]) / y_scale, as ONNX Runtime computes it.
  void Run(KernelContext& ctx) override {
    const Tensor& x = ctx.required_input(0);
    const Tensor& w = ctx.required_input(3);
    const Tensor& y_zp = ctx.required_input(7);
    PTQ_ENFORCE(IsInt8Type(x.dtype()), "input 'x' has type ", DataTypeName(x.dtype()), "; expected uint8 or int8");
    PTQ_ENFORCE(IsInt8Type(w.dtype()), "input 'w' has type ", DataTypeName(w.dtype()), "; expected uint8 or int8");
    const ConvGeometry geometry = channels_last_ ? ResolveConvGeometryChannelsLast(attrs_, x.shape(), w.shape())
                                                 : ResolveConvGeometry(attrs_, x.shape(), w.shape());
    const int64_t channels = geometry.out_channels;
    const QLinearConvParams* params = params_.Get(ctx);
    QLinearConvParams read;
    if (params == nullptr || params->x_type != x.dtype() || params->channels != channels) {
      read = ReadParams(ctx, x.dtype(), w.dtype(), channels);
      params = &read;
    }
    const int32_t x_zero_point = params->x_zero_point;
    const std::vector<int32_t>& w_zero_points = params->w_zero_points;
    const std::vector<float>& multipliers = params->multipliers;
    const int32_t y_zero_point = params->y_zero_point;
    const Tensor* bias = ctx.input(8);
    const int32_t* bv = bias != nullptr ? bias->data<int32_t>() : nullptr;
    Tensor y = Tensor::Uninitialized(y_zp.dtype(), geometry.output_shape());
    if (geometry.window.rank() <= 3) {
      const bool use_packed = packed_ && packed_->w_shape == w.shape() && packed_->dtype == w.dtype() &&
                              packed_->group == geometry.group;
      const Int8Output out = y.dtype() == DataType::kUint8 ? Int8Output::kUint8 : Int8Output::kInt8;
      Int8Conv(x, x_zero_point, w, w_zero_points, geometry, use_packed ? &*packed_ : nullptr, bv, out,
               multipliers.data(), y_zero_point, y);
      ctx.outputs[0] = std::move(y);
      return;
    }
    Tensor acc = IntConvReference(x, x_zero_point, w, w_zero_points, geometry);
    int32_t* a = acc.data<int32_t>();
    const int64_t plane = ShapeSize(geometry.window.output);
    if (bv != nullptr) {
      for (int64_t b = 0; b < geometry.batch; ++b) {
        for (int64_t m = 0; m < channels; ++m) {
          int32_t* p = a + (b * channels + m) * plane;
          // Unsigned addition: int32 overflow wraps modulo 2^32, as the accumulation does.
          for (int64_t i = 0; i < plane; ++i) {
            p[i] = static_cast<int32_t>(static_cast<uint32_t>(p[i]) + static_cast<uint32_t>(bv[m]));
          }
        }
      }
    }
    if (y.dtype() == DataType::kUint8) {
      Requantize<uint8_t>(a, geometry.batch, channels, plane, multipliers, y_zero_point, y);
    } else {
      Requantize<int8_t>(a, geometry.batch, channels, plane, multipliers, y_zero_point, y);
    }
    ctx.outputs[0] = std::move(y);
  }

 private:
  ConvAttributes attrs_;
  bool channels_last_;  // ptq.fused QLinearConv of the session's channels-last layout
  ConstantParams<QLinearConvParams> params_;
  std::optional<PackedInt8ConvWeights> packed_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQLinearConv(const KernelInit& init) { return MakeKernel<QLinearConvKernel>(init); }

}  // namespace ptq
