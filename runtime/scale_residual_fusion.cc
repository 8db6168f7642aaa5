// FuseScaleResiduals: Add(x, Mul(x, s)), the product read only there, becomes one ScaleResidual(x, s) (the
// squeeze-and-excitation residual of PP-OCRv4's RSE layers: x + x * HardSigmoid(...)).
#include "runtime/float_fusion.h"
#include "runtime/pattern_match.h"

namespace ptq {

void FuseScaleResiduals(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& mul = g.nodes[i];
    if (out->Changed(i) || !mul.domain.empty() || mul.op_type != "Mul" || mul.inputs.size() != 2) continue;
    size_t at;
    const Node* add = OnlyReaderNode(index, mul, &at);
    std::string x;
    if (add == nullptr || out->Changed(at) || !OtherOperand(*add, "Add", mul.outputs[0], true, &x)) continue;
    const int k = mul.inputs[0] == x ? 0 : mul.inputs[1] == x ? 1 : -1;  // x as the Mul's first or second operand
    if (k < 0) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "ScaleResidual";
    fused.inputs = {x, mul.inputs[static_cast<size_t>(1 - k)]};
    fused.outputs = add->outputs;
    out->Replace(i, std::move(fused));
    out->Drop(at);
    ++count->scale_residuals;
  }
}

}  // namespace ptq
