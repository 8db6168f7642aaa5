// QuantizeLinear/DequantizeLinear construction and matching helpers shared by the rewrite passes.
#include "rewrite/qdq_util.h"

#include <cstring>

#include "runtime/error.h"
#include "runtime/quant_math.h"
#include "runtime/tensor_proto.h"

namespace ptq {

std::pair<std::string, std::string> AddQuantParams(RewriteGraph* g, const std::string& base, const TensorQuant& q) {
  const std::string s = g->NewName(base + "/scale");
  const std::string z = g->NewName(base + "/zero_point");
  const int64_t n = static_cast<int64_t>(q.scales.size());
  const Shape shape = q.per_tensor() ? Shape{} : Shape{n};
  g->AddInitializer(s, Tensor::FromVector<float>(shape, q.scales));
  if (q.dtype == DataType::kInt8) {
    std::vector<int8_t> zp(q.zero_points.begin(), q.zero_points.end());
    g->AddInitializer(z, Tensor::FromVector<int8_t>(shape, zp));
  } else if (q.dtype == DataType::kUint8) {
    std::vector<uint8_t> zp(q.zero_points.begin(), q.zero_points.end());
    g->AddInitializer(z, Tensor::FromVector<uint8_t>(shape, zp));
  } else {
    g->AddInitializer(z, Tensor::FromVector<int32_t>(shape, q.zero_points));
  }
  return {s, z};
}

Tensor QuantizeWeight(const Tensor& w, const TensorQuant& q, const std::string& name) {
  PTQ_ENFORCE(w.dtype() == DataType::kFloat, "weights must be float32 to quantize");
  if (q.dtype != DataType::kInt8 && q.dtype != DataType::kUint8) {
    ThrowInputError("the calibration table gives weight '", name, "' the dtype ", DataTypeName(q.dtype),
                    "; weights are quantized to int8 or uint8");
  }
  const int64_t axis = q.per_tensor() ? -1 : q.axis;
  if (axis >= w.rank()) {
    ThrowInputError("the calibration table quantizes weight '", name, "' along axis ", axis, ", but its shape is ",
                    ShapeToString(w.shape()), ": the table was made for another model");
  }
  const int64_t channels = axis < 0 ? 1 : w.dim(axis);
  if (static_cast<int64_t>(q.scales.size()) != channels || q.zero_points.size() != q.scales.size()) {
    ThrowInputError("the calibration table gives weight '", name, "' ", q.scales.size(), " scales and ",
                    q.zero_points.size(), " zero points, but its shape ", ShapeToString(w.shape()), " has ", channels,
                    " channels along axis ", axis, ": the table was made for another model");
  }
  int64_t inner = 1;
  for (int64_t d = axis + 1; axis >= 0 && d < w.rank(); ++d) inner *= w.dim(d);
  const int32_t qmin = QuantMin(q.dtype), qmax = QuantMax(q.dtype);
  Tensor out(q.dtype, w.shape());
  const float* v = w.data<float>();
  for (int64_t i = 0; i < w.size(); ++i) {
    const size_t c = axis < 0 ? 0 : static_cast<size_t>((i / inner) % channels);
    const int32_t x = QuantizeValue(v[i], q.scales[c], q.zero_points[c], qmin, qmax);
    if (q.dtype == DataType::kInt8) out.data<int8_t>()[i] = static_cast<int8_t>(x);
    else out.data<uint8_t>()[i] = static_cast<uint8_t>(x);
  }
  return out;
}

Tensor QuantizeBiasTensor(const Tensor& bias, float input_scale, const std::vector<float>& weight_scales) {
  PTQ_ENFORCE(bias.dtype() == DataType::kFloat && (weight_scales.size() == 1 ||
                                                    static_cast<int64_t>(weight_scales.size()) == bias.size()),
              "bias of shape ", ShapeToString(bias.shape()), " does not match ", weight_scales.size(), " weight scales");
  Tensor out(DataType::kInt32, bias.shape());
  const float* b = bias.data<float>();
  for (int64_t i = 0; i < bias.size(); ++i) {
    const float ws = weight_scales.size() == 1 ? weight_scales[0] : weight_scales[static_cast<size_t>(i)];
    out.data<int32_t>()[i] = QuantizeBias(b[i], input_scale, ws);
  }
  return out;
}

QdqNode AsQdq(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  QdqNode q;
  q.index = i;
  q.x = n.input(0);
  q.scale = n.input(1);
  q.zero_point = n.input_size() > 2 ? n.input(2) : "";
  q.y = n.output(0);
  q.axis = GetIntAttr(n, "axis", 1);
  return q;
}

namespace {
std::optional<QdqNode> ProducerOf(const RewriteGraph& g, const std::string& tensor, const char* op) {
  const int p = g.Producer(tensor);
  if (p < 0 || g.node(p).op_type() != op) return std::nullopt;
  const QdqNode q = AsQdq(g, p);
  if (!g.IsInitializer(q.scale) || (!q.zero_point.empty() && !g.IsInitializer(q.zero_point))) return std::nullopt;
  return q;
}
}  // namespace

std::optional<QdqNode> ProducerDq(const RewriteGraph& g, const std::string& t) { return ProducerOf(g, t, "DequantizeLinear"); }
std::optional<QdqNode> ProducerQ(const RewriteGraph& g, const std::string& t) { return ProducerOf(g, t, "QuantizeLinear"); }

bool SameConstant(const RewriteGraph& g, const std::string& a, const std::string& b) {
  if (a == b) return true;
  if (a.empty() || b.empty() || !g.IsInitializer(a) || !g.IsInitializer(b)) return false;
  const Tensor ta = g.InitializerValue(a), tb = g.InitializerValue(b);
  return ta.dtype() == tb.dtype() && ta.shape() == tb.shape() && std::memcmp(ta.raw(), tb.raw(), ta.nbytes()) == 0;
}

bool IsScalarParam(const RewriteGraph& g, const std::string& name) {
  return g.IsInitializer(name) && g.InitializerValue(name).size() == 1;
}

bool SameQuantization(const RewriteGraph& g, const QdqNode& a, const QdqNode& b) {
  const bool scalar = IsScalarParam(g, a.scale) && IsScalarParam(g, b.scale);
  return SameConstant(g, a.scale, b.scale) && SameConstant(g, a.zero_point, b.zero_point) && (scalar || a.axis == b.axis);
}

}  // namespace ptq
