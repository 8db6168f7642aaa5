// BiasShift: the expected per-channel output shift of a quantized MatMul or Conv.
#include "rewrite/bias_correction.h"

#include "rewrite/qdq_util.h"
#include "runtime/ops/quantization/dequantize_linear.h"

namespace ptq {
namespace {

// The weight as the integer model holds it: quantized with q, then DequantizeLinear of the runtime.
Tensor DequantizedWeight(const Tensor& w, const TensorQuant& q, const std::string& name) {
  const Shape params = q.per_tensor() ? Shape{} : Shape{static_cast<int64_t>(q.scales.size())};
  const Tensor scale = Tensor::FromVector<float>(params, q.scales);
  Tensor zero_point(q.dtype, params);
  for (size_t c = 0; c < q.zero_points.size(); ++c) {
    if (q.dtype == DataType::kInt8) zero_point.data<int8_t>()[c] = static_cast<int8_t>(q.zero_points[c]);
    else zero_point.data<uint8_t>()[c] = static_cast<uint8_t>(q.zero_points[c]);
  }
  DequantizeLinearAttrs attrs;
  attrs.axis = q.per_tensor() ? 1 : q.axis;
  return DequantizeLinear(QuantizeWeight(w, q, name), scale, &zero_point, attrs);
}

}  // namespace

std::vector<float> BiasShift(const RewriteGraph& g, const onnx::NodeProto& node, const TensorQuant& x, const TensorQuant& w) {
  if (x.float_mean.empty() || node.input_size() < 2 || !g.IsInitializer(node.input(1))) return {};
  const Tensor weight = g.InitializerValue(node.input(1));
  if (weight.dtype() != DataType::kFloat) return {};
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t channels = static_cast<int64_t>(x.float_mean.size());
  const Tensor dequantized = DequantizedWeight(weight, w, node.input(1));
  const float* wq = dequantized.data<float>();
  const float* wf = weight.data<float>();
  std::vector<double> shift;
  if (node.op_type() == "MatMul") {
    if (weight.rank() != 2 || x.mean_axis != rank - 1 || weight.dim(0) != channels) return {};
    const int64_t n_out = weight.dim(1);
    shift.assign(static_cast<size_t>(n_out), 0.0);
    for (int64_t k = 0; k < channels; ++k) {
      const double eq = x.quantized_mean[static_cast<size_t>(k)], ex = x.float_mean[static_cast<size_t>(k)];
      for (int64_t o = 0; o < n_out; ++o) {
        const int64_t i = k * n_out + o;
        shift[static_cast<size_t>(o)] += static_cast<double>(wq[i]) * eq - static_cast<double>(wf[i]) * ex;
      }
    }
  } else if (node.op_type() == "Conv") {
    const int64_t group = GetIntAttr(node, "group", 1);
    if (weight.rank() < 3 || x.mean_axis != 1 || group < 1 || weight.dim(1) * group != channels ||
        weight.dim(0) % group != 0) {
      return {};
    }
    const int64_t m_out = weight.dim(0), c_per_group = weight.dim(1), m_per_group = m_out / group;
    const int64_t window = weight.size() / (m_out * c_per_group);
    shift.assign(static_cast<size_t>(m_out), 0.0);
    for (int64_t m = 0; m < m_out; ++m) {
      for (int64_t c = 0; c < c_per_group; ++c) {
        const size_t xc = static_cast<size_t>((m / m_per_group) * c_per_group + c);
        const double eq = x.quantized_mean[xc], ex = x.float_mean[xc];
        const int64_t base = (m * c_per_group + c) * window;
        double sq = 0, sf = 0;
        for (int64_t s = 0; s < window; ++s) {
          sq += wq[base + s];
          sf += wf[base + s];
        }
        shift[static_cast<size_t>(m)] += sq * eq - sf * ex;
      }
    }
  } else {
    return {};
  }
  return std::vector<float>(shift.begin(), shift.end());
}

}  // namespace ptq
