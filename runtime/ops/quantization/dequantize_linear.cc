// DequantizeLinear kernel: per-tensor and per-axis (vectorised) and blocked dequantization of 4 to 32-bit integers.
#include "runtime/ops/quantization/dequantize_linear.h"

#include <vector>

#include "runtime/float16.h"
#include "runtime/ops/quantization/dequantize_linear_rows.h"
#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/quant_axis.h"
#include "runtime/quant_math.h"

namespace ptq {

namespace {

bool InputTypeAllowed(DataType t, int opset) {
  switch (t) {
    case DataType::kInt8: case DataType::kUint8: case DataType::kInt32:
      return true;
    case DataType::kInt16: case DataType::kUint16: case DataType::kInt4: case DataType::kUint4:
      return opset >= 21;
    default:
      return false;
  }
}

void CheckTypes(const Tensor& x, const Tensor& x_scale, const Tensor* x_zero_point, int opset) {
  PTQ_ENFORCE(InputTypeAllowed(x.dtype(), opset), "DequantizeLinear-", opset, ": x of type ",
              DataTypeName(x.dtype()), " is not supported (int8, uint8, int32",
              opset >= 21 ? ", int16, uint16, int4, uint4" : "; 16 and 4-bit types need opset 21", ")");
  const DataType st = x_scale.dtype();
  const bool s_ok = st == DataType::kFloat || (opset >= 19 && (st == DataType::kFloat16 || st == DataType::kBfloat16));
  PTQ_ENFORCE(s_ok, "DequantizeLinear-", opset, ": x_scale of type ", DataTypeName(st), " is not supported (float32",
              opset >= 19 ? ", float16, bfloat16" : "; float16 and bfloat16 need opset 19", ")");
  if (!x_zero_point) return;
  PTQ_ENFORCE(x_zero_point->dtype() == x.dtype(), "DequantizeLinear: x_zero_point has type ",
              DataTypeName(x_zero_point->dtype()), " but x has type ", DataTypeName(x.dtype()));
  if (x.dtype() == DataType::kInt32) {
    for (int64_t i = 0; i < x_zero_point->size(); ++i) {
      PTQ_ENFORCE(x_zero_point->GetAsDouble(i) == 0.0, "DequantizeLinear: x_zero_point of an int32 x must be 0, got ",
                  x_zero_point->GetAsDouble(i), " at index ", i);
    }
  }
}

template <class Q>
void DequantizeInto(const Q* x, const QuantGranularity& g, const std::vector<float>& scale,
                    const std::vector<int32_t>& zero_point, float* y) {
  const bool blocked = g.inner_stride != 0 || g.outer_stride != 0;
  if (blocked) {
    // y[k] = (x[k] - zero_point[p]) * scale[p], p the element's parameter index: the generic path.
    g.ForEach([&](int64_t k, int64_t p) {
      const size_t pi = static_cast<size_t>(p);
      y[k] = DequantizeValue(static_cast<int32_t>(x[k]), scale[pi], zero_point[pi]);
    });
    return;
  }
  // Per-tensor: one vectorised run. Per-axis: one run per (outer, axis) block of `inner` elements,
  // or one row per outer index with the parameters as arrays when the axis is innermost.
  const bool avx2 = UseAvx2Clone<float, float>();
  if (g.axis_stride == 0) return DequantizeRun(x, g.outer * g.axis_dim * g.inner, scale[0], zero_point[0], y, avx2);
  if (g.inner == 1) {
    for (int64_t o = 0; o < g.outer; ++o) {
      DequantizeRow(x + o * g.axis_dim, g.axis_dim, scale.data(), zero_point.data(), y + o * g.axis_dim, avx2);
    }
    return;
  }
  int64_t k = 0;
  for (int64_t o = 0; o < g.outer; ++o) {
    for (size_t a = 0; a < scale.size(); ++a, k += g.inner) {
      DequantizeRun(x + k, g.inner, scale[a], zero_point[a], y + k, avx2);
    }
  }
}

void DequantizeAny(const Tensor& x, const QuantGranularity& g, const std::vector<float>& scale,
                   const std::vector<int32_t>& zero_point, float* y) {
  switch (x.dtype()) {
    case DataType::kInt8: case DataType::kInt4: return DequantizeInto(x.data<int8_t>(), g, scale, zero_point, y);
    case DataType::kUint8: case DataType::kUint4: return DequantizeInto(x.data<uint8_t>(), g, scale, zero_point, y);
    case DataType::kInt16: return DequantizeInto(x.data<int16_t>(), g, scale, zero_point, y);
    case DataType::kUint16: return DequantizeInto(x.data<uint16_t>(), g, scale, zero_point, y);
    case DataType::kInt32: return DequantizeInto(x.data<int32_t>(), g, scale, zero_point, y);
    default: throw Error(ErrorKind::kInternal, "DequantizeLinear: unhandled x type " + DataTypeName(x.dtype()));
  }
}

}  // namespace

Tensor DequantizeLinear(const Tensor& x, const Tensor& x_scale, const Tensor* x_zero_point,
                        const DequantizeLinearAttrs& attrs) {
  CheckTypes(x, x_scale, x_zero_point, attrs.opset);
  const QuantGranularity g =
      ResolveQuantGranularity(x.shape(), x_scale.shape(), x_zero_point ? &x_zero_point->shape() : nullptr,
                              attrs.axis, attrs.block_size, attrs.opset >= 13, {"x_scale", "x_zero_point"});
  const std::vector<float> scale = x_scale.ToFloatVector();
  std::vector<int32_t> zero_point(scale.size(), 0);
  if (x_zero_point) {
    for (int64_t i = 0; i < x_zero_point->size(); ++i) {
      zero_point[static_cast<size_t>(i)] = static_cast<int32_t>(x_zero_point->GetAsDouble(i));
    }
  }

  const DataType out_type = x_scale.dtype();
  Tensor y = Tensor::Uninitialized(out_type, x.shape());  // every element is written below
  if (out_type == DataType::kFloat) {
    DequantizeAny(x, g, scale, zero_point, y.data<float>());
    return y;
  }
  // float16 / bfloat16: computed in float32, then rounded to nearest even.
  std::vector<float> yf(static_cast<size_t>(x.size()));
  DequantizeAny(x, g, scale, zero_point, yf.data());
  uint16_t* out = y.data<uint16_t>();
  for (size_t k = 0; k < yf.size(); ++k) {
    out[k] = out_type == DataType::kFloat16 ? FloatToHalf(yf[k]) : FloatToBfloat16(yf[k]);
  }
  return y;
}

namespace {

class DequantizeLinearKernel : public Kernel {
 public:
  explicit DequantizeLinearKernel(const KernelInit& init) {
    attrs_.opset = init.opset;
    if (init.opset >= 13) attrs_.axis = init.attrs->GetInt("axis", 1);
    if (init.opset >= 21) {
      attrs_.block_size = init.attrs->GetInt("block_size", 0);
      PTQ_ENFORCE(attrs_.block_size >= 0, "attribute 'block_size' must be >= 0, got ", attrs_.block_size);
    }
  }

  void Run(KernelContext& ctx) override {
    ctx.outputs[0] = DequantizeLinear(ctx.required_input(0), ctx.required_input(1), ctx.input(2), attrs_);
  }

 private:
  DequantizeLinearAttrs attrs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeDequantizeLinear(const KernelInit& init) {
  return std::make_unique<DequantizeLinearKernel>(init);
}

}  // namespace ptq
