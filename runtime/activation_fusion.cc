// FuseConvActivations: one pass over the nodes, pairing each Conv with its only reader when that is a
// Relu or a Clip whose bounds are known before the run.
#include "runtime/activation_fusion.h"

#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ptq {
namespace {

// The bounds of Relu or Clip node n: Clip's from its attributes (opset < 11) or constant float32
// scalar inputs; false when they are computed or of another type.
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

}  // namespace

Graph FuseConvActivations(const Graph& graph, int* count) {
  std::map<std::string, std::vector<size_t>> readers;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& in : graph.nodes[i].inputs) readers[in].push_back(i);
    for (const std::string& in : graph.nodes[i].implicit_inputs) readers[in].push_back(i);
  }
  for (const ValueInfo& o : graph.outputs) readers[o.name].push_back(graph.nodes.size());
  Graph out = graph;
  std::vector<bool> drop(graph.nodes.size(), false);
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& conv = graph.nodes[i];
    if (!conv.domain.empty() || conv.op_type != "Conv" || conv.outputs.size() != 1) continue;
    const auto r = readers.find(conv.outputs[0]);
    if (r == readers.end() || r->second.size() != 1 || r->second[0] >= graph.nodes.size()) continue;
    const Node& act = graph.nodes[r->second[0]];
    float lo = 0.0f, hi = 0.0f;
    if (act.inputs.empty() || act.inputs[0] != conv.outputs[0] || !ActivationBounds(act, graph, &lo, &hi)) continue;
    Node& f = out.nodes[i];
    f.domain = "ptq.fused";
    f.op_type = "FusedConv";
    AttributeValue bound;
    bound.kind = AttributeValue::Kind::kFloat;
    bound.f = lo;
    f.attrs.Set(kActivationMin, bound);
    bound.f = hi;
    f.attrs.Set(kActivationMax, bound);
    f.outputs = {act.outputs[0]};
    drop[r->second[0]] = true;
    ++fused;
  }
  if (count) *count = fused;
  if (fused == 0) return out;
  out.opsets["ptq.fused"] = 1;
  std::vector<Node> kept;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    if (!drop[i]) kept.push_back(std::move(out.nodes[i]));
  }
  out.nodes = std::move(kept);
  return out;
}

}  // namespace ptq
