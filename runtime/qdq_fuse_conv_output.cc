// Fusion of a ConvIntegerToFloat whose only reader is QuantizeLinear: the convolution takes the QuantizeLinear's
// scale and zero point as inputs 8 and 9 and writes its output, each block quantized as it is stored
// (ops/quantization/integer_to_float.h), so that the float output is never read back from memory.
#include "runtime/qdq_match.h"

namespace ptq {

void FuseConvOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (n.domain != kFusedDomain || n.op_type != "ConvIntegerToFloat" || n.outputs.size() != 1 ||
        n.inputs.size() > 8 || out->Changed(i)) {
      continue;
    }
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    if (q == QdqIndex::kNone || out->Changed(q)) continue;
    const Node& qn = g.nodes[q];
    Node fused = n;
    fused.inputs.resize(8);  // omitted bias and residual stay omitted ("")
    fused.inputs.push_back(qn.inputs[1]);
    fused.inputs.push_back(qn.inputs[2]);
    fused.outputs = {qn.outputs[0]};
    out->Replace(i, std::move(fused));
    out->Drop(q);
    ++count->conv_outputs;
  }
}

}  // namespace ptq
