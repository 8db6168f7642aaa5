// FuseConvActivations: each Conv (or the session's ConvIntegerToFloat) paired with its only reader when that
// is a Relu or a Clip whose bounds are known before the run.
#include "runtime/activation_fusion.h"

#include <limits>
#include <string>

#include "runtime/float_fusion.h"

namespace ptq {

bool ActivationBounds(const Node& n, const Graph& g, float* lo, float* hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  if (!n.domain.empty()) return false;
  if (n.op_type == "Relu") {
    *lo = 0.0f;
    *hi = kInf;
    return true;
  }
  if (n.op_type != "Clip") return false;
  const auto opset = g.opsets.find("");
  if (opset != g.opsets.end() && opset->second < 11) {
    *lo = n.attrs.GetFloat("min", std::numeric_limits<float>::lowest());
    *hi = n.attrs.GetFloat("max", std::numeric_limits<float>::max());
    return true;
  }
  *lo = -kInf;
  *hi = kInf;
  for (size_t i = 1; i < n.inputs.size() && i < 3; ++i) {
    if (n.inputs[i].empty()) continue;
    const auto c = g.constants.find(n.inputs[i]);
    if (c == g.constants.end() || c->second.dtype() != DataType::kFloat || c->second.size() != 1) return false;
    (i == 1 ? *lo : *hi) = c->second.data<float>()[0];
  }
  return true;
}

void SetActivation(Node* conv, float lo, float hi) {
  AttributeValue bound;
  bound.kind = AttributeValue::Kind::kFloat;
  bound.f = lo;
  conv->attrs.Set(kActivationMin, bound);
  bound.f = hi;
  conv->attrs.Set(kActivationMax, bound);
}

bool IsConvIntegerToFloat(const Node& n) { return n.domain == kFusedDomain && n.op_type == "ConvIntegerToFloat"; }

bool HasActivation(const Node& n) { return n.attrs.Has(kActivationMin) || n.attrs.GetInt(kActivationSilu, 0) != 0; }

void FuseConvActivations(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& graph = index.graph();
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& conv = graph.nodes[i];
    const bool integer = IsConvIntegerToFloat(conv);
    if ((!integer && (!conv.domain.empty() || conv.op_type != "Conv")) || conv.outputs.size() != 1) continue;
    if (integer && HasActivation(conv)) continue;
    const size_t r = index.OnlyReader(conv.outputs[0]);
    if (r == GraphIndex::kNone) continue;
    const Node& act = graph.nodes[r];
    float lo = 0.0f, hi = 0.0f;
    if (act.inputs.empty() || act.inputs[0] != conv.outputs[0] || !ActivationBounds(act, graph, &lo, &hi)) continue;
    Node f = conv;
    f.domain = kFusedDomain;
    if (!integer) f.op_type = "FusedConv";  // a ConvIntegerToFloat keeps its kind and takes the attributes
    SetActivation(&f, lo, hi);
    f.outputs = {act.outputs[0]};
    out->Replace(i, std::move(f));
    out->Drop(r);
    ++count->conv_activations;
  }
}

}  // namespace ptq
