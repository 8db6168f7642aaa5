// FuseSilus: Mul(x, Sigmoid(x)) (SiLU, swish; EfficientNet's activation) becomes one Silu.
#include "runtime/float_fusion.h"
#include "runtime/pattern_match.h"

namespace ptq {

void FuseSilus(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& sigmoid = g.nodes[i];
    if (!sigmoid.domain.empty() || sigmoid.op_type != "Sigmoid" || sigmoid.inputs.size() != 1 ||
        sigmoid.outputs.size() != 1) {
      continue;
    }
    size_t at;
    const Node* mul = OnlyReaderNode(index, sigmoid, &at);
    std::string other;
    if (!mul || !OtherOperand(*mul, "Mul", sigmoid.outputs[0], true, &other) || other != sigmoid.inputs[0]) continue;
    if (out->Changed(i) || out->Changed(at)) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "Silu";
    fused.inputs = {sigmoid.inputs[0]};
    fused.outputs = mul->outputs;
    out->Replace(i, std::move(fused));
    out->Drop(at);
    ++count->silus;
  }
}

}  // namespace ptq
