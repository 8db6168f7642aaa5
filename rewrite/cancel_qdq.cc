// Pass: QuantizeLinear(DequantizeLinear(x)) with the same scale, zero point and type is x itself.
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {

bool CancelQdqPairs(RewriteGraph* g) {
  bool changed = false;
  for (size_t i = 0; i < g->nodes().size(); ++i) {
    if (g->nodes()[i].op_type() != "QuantizeLinear") continue;
    const QdqNode q = AsQdq(*g, static_cast<int>(i));
    auto dq = ProducerDq(*g, q.x);
    if (!dq || !SameQuantization(*g, *dq, q) || g->IsGraphOutput(q.y)) continue;
    g->ReplaceUses(q.y, dq->x);
    g->RemoveNode(static_cast<int>(i));
    changed = true;
  }
  return changed;
}

}  // namespace ptq
