// QDQ fusion of DequantizeLinear(a), DequantizeLinear(b) -> Add / Mul -> QuantizeLinear into one
// QLinearAdd / QLinearMul that reads and writes the 8-bit tensors (ops/quantization/qlinear_binary.h).
#include "runtime/qdq_match.h"

namespace ptq {

void FuseBinaryGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || (n.op_type != "Add" && n.op_type != "Mul") || n.inputs.size() != 2 ||
        n.attrs.Has("broadcast")) {  // opsets before 7 broadcast by attribute
      continue;
    }
    DqNode a, b;
    if (!index.Dequantized(n.inputs[0], false, 0, &a) || !index.Dequantized(n.inputs[1], false, 0, &b)) continue;
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    if (q == QdqIndex::kNone) continue;
    const Node& qn = g.nodes[q];
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = n.op_type == "Add" ? "QLinearAdd" : "QLinearMul";
    fused.inputs = {a.quantized(), a.node->inputs[1], a.node->inputs[2], b.quantized(), b.node->inputs[1],
                    b.node->inputs[2], qn.inputs[1], qn.inputs[2]};
    fused.outputs = {qn.outputs[0]};
    out->Replace(i, std::move(fused));
    out->Drop(q);
    ++count->binary;
  }
}

}  // namespace ptq
