// FuseSilus: Mul(x, Sigmoid(x)) (SiLU, swish; EfficientNet's activation) becomes one Silu, or joins the float
// Conv (or the session's ConvIntegerToFloat) that computes x as its activation.
#include <algorithm>
#include <vector>

#include "runtime/activation_fusion.h"
#include "runtime/float_fusion.h"
#include "runtime/pattern_match.h"

namespace ptq {
namespace {

// The float32 Conv (constant weight) or ConvIntegerToFloat (without an activation yet) writing x when the
// SiLU's two nodes are x's only readers, else kNone.
size_t ConvOfSilu(const GraphIndex& index, const GraphEdit& out, const std::string& x, size_t sigmoid, size_t mul) {
  const size_t c = index.Producer(x);
  if (c == GraphIndex::kNone || out.Changed(c)) return GraphIndex::kNone;
  const Node& conv = index.graph().nodes[c];
  if (IsConvIntegerToFloat(conv)) {
    if (conv.outputs.size() != 1 || HasActivation(conv)) return GraphIndex::kNone;
  } else {
    if (!conv.domain.empty() || conv.op_type != "Conv" || conv.outputs.size() != 1 || conv.inputs.size() < 2) {
      return GraphIndex::kNone;
    }
    const Tensor* w = index.Constant(conv.inputs[1]);
    if (w == nullptr || w->dtype() != DataType::kFloat) return GraphIndex::kNone;
  }
  std::vector<size_t> readers = index.Readers(x);
  std::sort(readers.begin(), readers.end());
  const std::vector<size_t> silu = {std::min(sigmoid, mul), std::max(sigmoid, mul)};
  return readers == silu ? c : GraphIndex::kNone;
}

}  // namespace

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
    const size_t c = ConvOfSilu(index, *out, sigmoid.inputs[0], i, at);
    if (c != GraphIndex::kNone) {
      Node f = g.nodes[c];
      if (!IsConvIntegerToFloat(f)) f.op_type = "FusedConv";
      f.domain = kFusedDomain;
      AttributeValue on;
      on.kind = AttributeValue::Kind::kInt;
      on.i = 1;
      f.attrs.Set(kActivationSilu, on);
      f.outputs = mul->outputs;
      out->Replace(c, std::move(f));
      out->Drop(i);
      out->Drop(at);
      ++count->conv_activations;
      continue;
    }
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
