// Pass: nodes whose outputs nobody reads (and that are not graph outputs) are removed, repeatedly.
#include "rewrite/passes.h"

namespace ptq {

bool RemoveDeadNodes(RewriteGraph* g) {
  bool changed = false;
  for (bool again = true; again;) {
    again = false;
    for (size_t i = 0; i < g->nodes().size(); ++i) {
      const auto& n = g->nodes()[i];
      if (n.op_type().empty()) continue;
      bool used = false;
      for (const auto& o : n.output()) {
        if (!o.empty() && (g->IsGraphOutput(o) || !g->Consumers(o).empty())) used = true;
      }
      if (!used) {
        g->RemoveNode(static_cast<int>(i));
        again = changed = true;
      }
    }
  }
  return changed;
}

}  // namespace ptq
