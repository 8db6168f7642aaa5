// Pass: nodes whose outputs nobody reads (and that are not graph outputs) are removed, and then their
// producers when that leaves them unread, through a worklist (linear in the node count).
#include "rewrite/passes.h"

namespace ptq {
namespace {

bool IsDead(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (n.op_type().empty()) return false;
  for (const auto& o : n.output()) {
    if (!o.empty() && (g.IsGraphOutput(o) || !g.Consumers(o).empty())) return false;
  }
  return true;
}

}  // namespace

bool RemoveDeadNodes(RewriteGraph* g) {
  std::vector<int> work;
  for (int i = g->size() - 1; i >= 0; --i) work.push_back(i);
  bool changed = false;
  while (!work.empty()) {
    const int i = work.back();
    work.pop_back();
    if (!IsDead(*g, i)) continue;
    const onnx::NodeProto n = g->node(i);
    g->RemoveNode(i);
    changed = true;
    for (const auto& in : n.input()) {
      const int p = g->Producer(in);
      if (p >= 0) work.push_back(p);
    }
  }
  return changed;
}

}  // namespace ptq
