// Attention matching by walking producer/consumer links from each Softmax.
#include "runtime/attention_pattern.h"

#include <map>
#include <set>
#include <string>

#include "runtime/value_movement.h"

namespace ptq {

namespace {

// The scaling and masking of the scores (Div or Mul by sqrt(d), Add or Where of a mask), or a change of
// their shape or type.
bool IsScoreOp(const std::string& op) {
  static const std::set<std::string> kArithmetic = {"Div", "Mul", "Add", "Sub", "Where"};
  return kArithmetic.count(op) != 0 || KeepsValuesApartFromType(op);
}

}  // namespace

std::vector<AttentionMatch> FindAttention(const Graph& graph) {
  std::map<std::string, std::vector<std::pair<const Node*, size_t>>> consumers;  // tensor -> (node, input index)
  std::map<std::string, const Node*> producer;
  for (const Node& n : graph.nodes) {
    for (size_t i = 0; i < n.inputs.size(); ++i) consumers[n.inputs[i]].push_back({&n, i});
    for (const std::string& o : n.outputs) producer[o] = &n;
  }
  auto is_constant = [&](const std::string& t) { return graph.constants.count(t) != 0; };
  std::vector<AttentionMatch> out;
  for (const Node& sm : graph.nodes) {
    if (sm.op_type != "Softmax" || !sm.domain.empty() || sm.outputs.empty()) continue;
    AttentionMatch m;
    m.softmax = &sm;
    // Forward: Softmax output -> shape-only ops -> MatMul input 0 with a non-constant input 1.
    std::vector<std::string> frontier = {sm.outputs[0]};
    std::set<std::string> seen;
    while (!frontier.empty() && !m.pv_matmul) {
      const std::string t = frontier.back();
      frontier.pop_back();
      if (!seen.insert(t).second) continue;
      for (const auto& c : consumers[t]) {
        const Node* n = c.first;
        if (n->op_type == "MatMul" && c.second == 0 && n->inputs.size() > 1 && !is_constant(n->inputs[1])) {
          m.pv_matmul = n;
          break;
        }
        if (KeepsValuesApartFromType(n->op_type) && c.second == 0 && !n->outputs.empty()) frontier.push_back(n->outputs[0]);
      }
    }
    if (!m.pv_matmul) continue;
    // Backward: Softmax input <- scaling/masking/shape ops <- MatMul of two non-constant inputs.
    std::vector<std::string> back = {sm.inputs.empty() ? std::string() : sm.inputs[0]};
    seen.clear();
    while (!back.empty() && !m.qk_matmul) {
      const std::string t = back.back();
      back.pop_back();
      if (t.empty() || !seen.insert(t).second) continue;
      auto p = producer.find(t);
      if (p == producer.end()) continue;
      const Node* n = p->second;
      if (n->op_type == "MatMul" && n->inputs.size() == 2 && !is_constant(n->inputs[0]) && !is_constant(n->inputs[1])) {
        m.qk_matmul = n;
        break;
      }
      if (!IsScoreOp(n->op_type)) continue;
      for (const std::string& in : n->inputs) {
        if (!in.empty() && !is_constant(in)) back.push_back(in);
      }
    }
    out.push_back(m);
  }
  return out;
}

}  // namespace ptq
