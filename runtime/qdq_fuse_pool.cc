// QDQ fusion of DequantizeLinear -> AveragePool / GlobalAveragePool -> QuantizeLinear into one
// QLinearAveragePool / QLinearGlobalAveragePool on the 8-bit tensor (ops/quantization/qlinear_average_pool.h).
#include "runtime/qdq_match.h"

namespace ptq {

void FusePoolGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || (n.op_type != "AveragePool" && n.op_type != "GlobalAveragePool") ||
        n.inputs.size() != 1 || n.outputs.size() != 1) {
      continue;
    }
    DqNode x;
    if (!index.Dequantized(n.inputs[0], false, 0, &x)) continue;
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    if (q == QdqIndex::kNone) continue;
    const Node& qn = g.nodes[q];
    // The output type must be the input's: the kernels write x's 8-bit type.
    if (index.Constant(qn.inputs[2])->dtype() != x.zero_point->dtype()) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "QLinear" + n.op_type;
    fused.attrs = n.attrs;
    fused.inputs = {x.quantized(), x.node->inputs[1], x.node->inputs[2], qn.inputs[1], qn.inputs[2]};
    fused.outputs = {qn.outputs[0]};
    out->Replace(i, std::move(fused));
    out->Drop(q);
    ++count->pools;
  }
}

}  // namespace ptq
