// QuantizeLinear kernel: per-tensor, per-axis (vectorised) and blocked quantization to 4, 8 and 16-bit integers.
#include "runtime/ops/quantization/quantize_linear.h"

#include <string>
#include <vector>

#include "runtime/ops/math/elementwise.h"
#include "runtime/ops/quantization/quant_axis.h"
#include "runtime/ops/quantization/quantize_linear_rows.h"
#include "runtime/quant_math.h"

namespace ptq {

namespace {

// The float8 codes of TensorProto.DataType, which QuantizeLinear-19+ allows but ptq does not run.
const char* Float8Name(int64_t code) {
  switch (code) {
    case 17: return "float8e4m3fn";
    case 18: return "float8e4m3fnuz";
    case 19: return "float8e5m2";
    case 20: return "float8e5m2fnuz";
    default: return nullptr;
  }
}

bool OutputTypeAllowed(DataType t, int opset) {
  switch (t) {
    case DataType::kUint8: case DataType::kInt8:
      return true;
    case DataType::kUint16: case DataType::kInt16: case DataType::kUint4: case DataType::kInt4:
      return opset >= 21;
    default:
      return false;
  }
}

void CheckInputTypes(const Tensor& x, const Tensor& y_scale, int opset) {
  const DataType xt = x.dtype();
  const bool x_ok = xt == DataType::kFloat || xt == DataType::kInt32 ||
                    (opset >= 19 && (xt == DataType::kFloat16 || xt == DataType::kBfloat16));
  PTQ_ENFORCE(x_ok, "QuantizeLinear-", opset, ": x of type ", DataTypeName(xt),
              " is not supported (float32, int32", opset >= 19 ? ", float16, bfloat16" : "", ")");
  const DataType st = y_scale.dtype();
  const bool s_ok = st == DataType::kFloat ||
                    (opset >= 19 && (st == DataType::kFloat16 || st == DataType::kBfloat16 ||
                                     (st == DataType::kInt32 && xt == DataType::kInt32)));
  PTQ_ENFORCE(s_ok, "QuantizeLinear-", opset, ": y_scale of type ", DataTypeName(st),
              " is not supported (float32", opset >= 19 ? ", float16, bfloat16" : "", ")");
}

// x as float32: the tensor's own buffer for float32, else a converted copy in `storage`.
const float* FloatData(const Tensor& x, std::vector<float>& storage) {
  if (x.dtype() == DataType::kFloat) return x.data<float>();
  storage = x.ToFloatVector();  // exact for float16, bfloat16; int32 rounds beyond 2^24
  return storage.data();
}

// Blocked granularity, element by element: the generic path.
template <class Q>
void QuantizeEach(const float* x, const QuantGranularity& g, const std::vector<float>& scale,
                  const std::vector<int32_t>& zero_point, int32_t qmin, int32_t qmax, Q* y) {
  // y[k] = saturate(round_half_even(x[k] / scale[p]) + zero_point[p]), p the element's parameter index
  g.ForEach([&](int64_t k, int64_t p) {
    const size_t pi = static_cast<size_t>(p);
    y[k] = static_cast<Q>(QuantizeValue(x[k], scale[pi], zero_point[pi], qmin, qmax));
  });
}

// Per-tensor and per-axis granularity through the vectorised loops of quantize_linear_rows.h:
// per-tensor is one run; per-axis is one run per (outer, axis) block of `inner` elements, or,
// when the axis is innermost, one row per outer index with the parameters as arrays.
template <class Q>
void QuantizeRuns(const float* x, const QuantGranularity& g, const std::vector<float>& scale,
                  const std::vector<int32_t>& zero_point, int32_t qmin, int32_t qmax, Q* y) {
  const bool avx2 = UseAvx2Clone<float, float>();
  if (g.axis_stride == 0) {  // a large tensor (a network's input image) shared between threads
    const int64_t n = g.outer * g.axis_dim * g.inner;
    const QuantizeRunParams params = MakeQuantizeRunParams(scale[0], zero_point[0], qmin, qmax);
    ForEachChunk(n, 64, ElementwiseThreads(n),
                 [&](int64_t begin, int64_t end) { QuantizeRun(x + begin, end - begin, params, y + begin, avx2); });
    return;
  }
  const size_t dim = static_cast<size_t>(g.axis_dim);
  std::vector<QuantizeRunParams> params(dim);
  for (size_t a = 0; a < dim; ++a) params[a] = MakeQuantizeRunParams(scale[a], zero_point[a], qmin, qmax);
  if (g.inner == 1) {
    std::vector<float> lo(dim), hi(dim), zp(dim);
    for (size_t a = 0; a < dim; ++a) {
      lo[a] = params[a].lo;
      hi[a] = params[a].hi;
      zp[a] = params[a].zero_point;
    }
    const QuantizeRowParams row{scale.data(), lo.data(), hi.data(), zp.data()};
    for (int64_t o = 0; o < g.outer; ++o) QuantizeRow(x + o * g.axis_dim, g.axis_dim, row, y + o * g.axis_dim, avx2);
    return;
  }
  int64_t k = 0;
  for (int64_t o = 0; o < g.outer; ++o) {
    for (size_t a = 0; a < dim; ++a, k += g.inner) QuantizeRun(x + k, g.inner, params[a], y + k, avx2);
  }
}

template <class Q>
void QuantizeInto(const float* x, const QuantGranularity& g, const std::vector<float>& scale,
                  const std::vector<int32_t>& zero_point, int32_t qmin, int32_t qmax, Q* y) {
  const bool blocked = g.inner_stride != 0 || g.outer_stride != 0;
  if (blocked) return QuantizeEach(x, g, scale, zero_point, qmin, qmax, y);
  QuantizeRuns(x, g, scale, zero_point, qmin, qmax, y);
}

}  // namespace

DataType QuantizeLinearOutputType(DataType zero_point_type, const QuantizeLinearAttrs& attrs) {
  const int64_t od = attrs.output_dtype;
  if (const char* f8 = Float8Name(od)) {
    ThrowInputError("QuantizeLinear: output_dtype ", f8, " is not supported (float8 outputs are not implemented)");
  }
  DataType t = DataType::kUint8;
  if (zero_point_type != DataType::kUndefined) {
    PTQ_ENFORCE(od == 0 || od == static_cast<int64_t>(zero_point_type), "QuantizeLinear: attribute output_dtype (",
                DataTypeName(static_cast<DataType>(od)), ") disagrees with the type of y_zero_point (",
                DataTypeName(zero_point_type), ")");
    t = zero_point_type;
  } else if (od != 0) {
    t = static_cast<DataType>(od);
  }
  PTQ_ENFORCE(OutputTypeAllowed(t, attrs.opset), "QuantizeLinear-", attrs.opset, ": output type ", DataTypeName(t),
              " is not supported (uint8, int8", attrs.opset >= 21 ? ", uint16, int16, uint4, int4" : "",
              attrs.opset < 21 ? "; 16 and 4-bit types need opset 21" : "", ")");
  return t;
}

Tensor QuantizeLinear(const Tensor& x, const Tensor& y_scale, const Tensor* y_zero_point,
                      const QuantizeLinearAttrs& attrs) {
  CheckInputTypes(x, y_scale, attrs.opset);
  const DataType out_type =
      QuantizeLinearOutputType(y_zero_point ? y_zero_point->dtype() : DataType::kUndefined, attrs);
  const QuantGranularity g =
      ResolveQuantGranularity(x.shape(), y_scale.shape(), y_zero_point ? &y_zero_point->shape() : nullptr,
                              attrs.axis, attrs.block_size, attrs.opset >= 13, {"y_scale", "y_zero_point"});

  const std::vector<float> scale = y_scale.ToFloatVector();
  std::vector<int32_t> zero_point(scale.size(), 0);
  if (y_zero_point) {
    for (int64_t i = 0; i < y_zero_point->size(); ++i) {
      zero_point[static_cast<size_t>(i)] = static_cast<int32_t>(y_zero_point->GetAsDouble(i));
    }
  }
  std::vector<float> x_storage;
  const float* xf = FloatData(x, x_storage);

  Tensor y = Tensor::Uninitialized(out_type, x.shape());  // every element is written below
  const int32_t qmin = QuantMin(out_type);
  const int32_t qmax = QuantMax(out_type);
  switch (out_type) {
    case DataType::kInt8: case DataType::kInt4:
      QuantizeInto(xf, g, scale, zero_point, qmin, qmax, y.data<int8_t>());
      break;
    case DataType::kUint8: case DataType::kUint4:
      QuantizeInto(xf, g, scale, zero_point, qmin, qmax, y.data<uint8_t>());
      break;
    case DataType::kInt16:
      QuantizeInto(xf, g, scale, zero_point, qmin, qmax, y.data<int16_t>());
      break;
    case DataType::kUint16:
      QuantizeInto(xf, g, scale, zero_point, qmin, qmax, y.data<uint16_t>());
      break;
    default:
      throw Error(ErrorKind::kInternal, "QuantizeLinear: unhandled output type " + DataTypeName(out_type));
  }
  return y;
}

Quantize8 ReadQuantize8(const Tensor& y_scale, const Tensor& y_zero_point, const std::string& op) {
  PTQ_ENFORCE(y_scale.dtype() == DataType::kFloat && y_scale.size() == 1, op, ": y_scale must be one float32");
  const DataType t = y_zero_point.dtype();
  PTQ_ENFORCE((t == DataType::kUint8 || t == DataType::kInt8) && y_zero_point.size() == 1, op,
              ": y_zero_point must be one uint8 or int8");
  return {t, MakeQuantizeRunParams(y_scale.data<float>()[0], static_cast<int32_t>(y_zero_point.GetAsDouble(0)),
                                   QuantMin(t), QuantMax(t))};
}

void QuantizeRun8(const float* x, int64_t n, const Quantize8& q, void* y) {
  const bool avx2 = UseAvx2Clone<float, float>();
  if (q.type == DataType::kInt8) {
    QuantizeRun(x, n, q.params, static_cast<int8_t*>(y), avx2);
  } else {
    QuantizeRun(x, n, q.params, static_cast<uint8_t*>(y), avx2);
  }
}

namespace {

class QuantizeLinearKernel : public Kernel {
 public:
  explicit QuantizeLinearKernel(const KernelInit& init) {
    const Attributes& a = *init.attrs;
    attrs_.opset = init.opset;
    if (init.opset >= 13) attrs_.axis = a.GetInt("axis", 1);
    if (init.opset >= 19) (void)a.GetInt("saturate", 1);  // only affects float8 outputs
    if (init.opset >= 21) {
      attrs_.block_size = a.GetInt("block_size", 0);
      attrs_.output_dtype = a.GetInt("output_dtype", 0);
      PTQ_ENFORCE(attrs_.block_size >= 0, "attribute 'block_size' must be >= 0, got ", attrs_.block_size);
      if (const char* f8 = Float8Name(attrs_.output_dtype)) {
        ThrowInputError("QuantizeLinear: output_dtype ", f8, " is not supported (float8 outputs are not implemented)");
      }
    }
  }

  void Run(KernelContext& ctx) override {
    ctx.outputs[0] = QuantizeLinear(ctx.required_input(0), ctx.required_input(1), ctx.input(2), attrs_);
  }

 private:
  QuantizeLinearAttrs attrs_;
};

}  // namespace

std::unique_ptr<Kernel> MakeQuantizeLinear(const KernelInit& init) {
  return std::make_unique<QuantizeLinearKernel>(init);
}

}  // namespace ptq
