// Fusion of a float Add / Mul whose only reader is QuantizeLinear into one AddQuantizeLinear / MulQuantizeLinear
// that writes the 8-bit result without the float one (ops/quantization/binary_quantize_linear.h).
#include "runtime/qdq_match.h"

namespace ptq {

void FuseBinaryOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || (n.op_type != "Add" && n.op_type != "Mul") || n.inputs.size() != 2 ||
        n.inputs[0].empty() || n.inputs[1].empty() || n.attrs.Has("broadcast") || out->Changed(i)) {
      continue;  // opsets before 7 broadcast by attribute
    }
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    if (q == QdqIndex::kNone || out->Changed(q)) continue;
    const Node& qn = g.nodes[q];
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = n.op_type == "Add" ? "AddQuantizeLinear" : "MulQuantizeLinear";
    fused.inputs = {n.inputs[0], n.inputs[1], qn.inputs[1], qn.inputs[2]};
    fused.outputs = {qn.outputs[0]};
    AttributeValue opset;  // the QuantizeLinear's, for inputs other than float32 (the literal nodes)
    opset.kind = AttributeValue::Kind::kInt;
    opset.i = g.OpsetFor("");
    fused.attrs.Set("opset", opset);
    out->Replace(i, std::move(fused));
    out->Drop(q);
    ++count->binary_outputs;
  }
}

}  // namespace ptq
