// Pass: QuantizeLinear(DequantizeLinear(x)) with the same scale, zero point and type is x itself.
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {

bool CancelQdqPairs(RewriteGraph* g) {
  bool changed = false;
  for (int i = 0; i < g->size(); ++i) {
    if (g->node(i).op_type() != "QuantizeLinear") continue;
    const QdqNode q = AsQdq(*g, i);
    auto dq = ProducerDq(*g, q.x);
    if (!dq || !SameQuantization(*g, *dq, q) || g->IsGraphOutput(q.y)) continue;
    g->ReplaceUses(q.y, dq->x);
    g->RemoveNode(i);
    changed = true;
  }
  return changed;
}

}  // namespace ptq
