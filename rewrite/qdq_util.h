// Building and reading QuantizeLinear/DequantizeLinear nodes and their scale/zero-point initializers.
#pragma once

#include <optional>
#include <string>

#include "runtime/quant_table.h"
#include "rewrite/rewrite_graph.h"

namespace ptq {

// Adds initializers `<base>/scale` (float) and `<base>/zero_point` (q.dtype): scalars when q is per
// tensor, 1-D otherwise. Returns {scale name, zero point name}.
std::pair<std::string, std::string> AddQuantParams(RewriteGraph* g, const std::string& base, const TensorQuant& q);

// w quantized with q (per tensor, or per channel along q.axis) through quant_math.h. Throws an input
// error naming the weight `name` when q's axis or number of scales does not fit w's shape.
Tensor QuantizeWeight(const Tensor& w, const TensorQuant& q, const std::string& name);

// bias (float [C]) as int32: round(bias[c] / (input_scale * weight_scale[c])) (quant_math.h).
Tensor QuantizeBiasTensor(const Tensor& bias, float input_scale, const std::vector<float>& weight_scales);

// A QuantizeLinear or DequantizeLinear node as the fusion passes see it.
struct QdqNode {
  int index = -1;
  std::string x, scale, zero_point, y;  // zero_point "" when absent
  int64_t axis = 1;
};
// The DequantizeLinear (or QuantizeLinear) node producing `tensor`, when there is one.
std::optional<QdqNode> ProducerDq(const RewriteGraph& g, const std::string& tensor);
std::optional<QdqNode> ProducerQ(const RewriteGraph& g, const std::string& tensor);
// The node at index i as a QdqNode. REQUIRES: it is a QuantizeLinear or DequantizeLinear.
QdqNode AsQdq(const RewriteGraph& g, int i);

// True when both initializers hold the same values (scales and zero points of two Q/DQ nodes).
bool SameConstant(const RewriteGraph& g, const std::string& a, const std::string& b);
// True when a and b quantize alike: same scale, zero point (value and type) and axis, all constant.
bool SameQuantization(const RewriteGraph& g, const QdqNode& a, const QdqNode& b);
// True when the scale initializer is a single value (per-tensor quantization).
bool IsScalarParam(const RewriteGraph& g, const std::string& name);

}  // namespace ptq
