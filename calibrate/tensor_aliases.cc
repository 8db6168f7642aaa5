// FindValueAliases: walks each observed tensor's producers back through value-preserving ops.
#include "calibrate/tensor_aliases.h"

#include <set>

#include "runtime/value_movement.h"

namespace ptq {

std::map<std::string, std::string> FindValueAliases(const Graph& graph, const std::set<std::string>& observed) {
  std::map<std::string, const Node*> producer;
  for (const Node& n : graph.nodes) {
    for (const std::string& o : n.outputs) {
      if (!o.empty()) producer[o] = &n;
    }
  }
  // The nearest observed tensor T's values come from, or "" when none.
  auto source_of = [&](const std::string& t) -> std::string {
    std::string cur = t;
    for (size_t steps = 0; steps <= graph.nodes.size(); ++steps) {
      const auto p = producer.find(cur);
      if (p == producer.end()) return "";
      const Node& n = *p->second;
      if (!n.domain.empty() || !RearrangesValues(n.op_type) || n.inputs.empty() || n.outputs.size() != 1) return "";
      cur = n.inputs[0];
      if (cur.empty()) return "";
      if (observed.count(cur)) return cur;
    }
    return "";  // a cycle: the session refuses the graph anyway
  };
  std::map<std::string, std::string> alias;
  for (const std::string& t : observed) {
    const std::string s = source_of(t);
    if (!s.empty()) alias[t] = s;
  }
  // Sources of sources: point every alias at a tensor that is folded itself.
  for (auto& kv : alias) {
    for (size_t steps = 0; steps < alias.size() && alias.count(kv.second); ++steps) kv.second = alias.at(kv.second);
  }
  return alias;
}

}  // namespace ptq
