// FuseConvSums: a residual block's end, Conv -> Add(conv, z) [-> Relu / Clip], becomes one FusedConv with
// z as input 3, added (then clamped) as the GEMM stores each output; ConvIntegerToFloat -> Add(conv, z)
// [-> Relu / Clip] one ConvIntegerToFloat with z as input 7 (the int8 residual blocks of ResNets, whose Add
// and Relu otherwise each made a pass over the block's float output).
#include "runtime/activation_fusion.h"
#include "runtime/float_fusion.h"
#include "runtime/ops/quantization/integer_to_float.h"
#include "runtime/pattern_match.h"

namespace ptq {

void FuseConvSums(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& conv = g.nodes[i];
    const bool integer = IsConvIntegerToFloat(conv);  // its output is float32 whatever its weights
    if ((!integer && (!conv.domain.empty() || conv.op_type != "Conv")) || conv.outputs.size() != 1 ||
        conv.inputs.size() < 2 || out->Changed(i)) {
      continue;
    }
    if (integer && (HasActivation(conv) || conv.inputs.size() > static_cast<size_t>(kToFloatResidual))) continue;
    const Tensor* w = index.Constant(conv.inputs[1]);
    if (!integer && (w == nullptr || w->dtype() != DataType::kFloat)) continue;
    size_t add_at;
    const Node* add = OnlyReaderNode(index, conv, &add_at);
    std::string z;
    // z is computed (a residual); a constant operand is a bias, which the Add keeps (it broadcasts).
    if (!add || !OtherOperand(*add, "Add", conv.outputs[0], true, &z) || z == conv.outputs[0] || z.empty() ||
        index.Constant(z) != nullptr || add->attrs.Has("broadcast") || out->Changed(add_at)) {
      continue;
    }
    Node f = conv;
    f.domain = kFusedDomain;
    if (integer) {
      f.inputs.resize(kToFloatResidual);  // up to the float bias ("" when absent)
    } else {
      f.op_type = "FusedConv";
      f.inputs.resize(3);  // X, W, B ("" when absent)
    }
    f.inputs.push_back(z);
    f.outputs = add->outputs;
    size_t act_at;
    const Node* act = OnlyReaderNode(index, *add, &act_at);
    float lo = 0.0f, hi = 0.0f;
    const bool with_act = act && !act->inputs.empty() && act->inputs[0] == add->outputs[0] &&
                          ActivationBounds(*act, g, &lo, &hi) && !out->Changed(act_at);
    if (with_act) {
      SetActivation(&f, lo, hi);
      f.outputs = act->outputs;
      out->Drop(act_at);
    }
    out->Replace(i, std::move(f));
    out->Drop(add_at);
    ++count->conv_sums;
  }
}

}  // namespace ptq
