// The rewrite pipeline: which passes run for each format, in which order.
#include "rewrite/passes.h"

namespace ptq {

void RunRewritePasses(RewriteGraph* g, const QuantPlan& plan, QuantFormat format) {
  InsertQdq(g, plan);
  if (format == QuantFormat::kQOperator) {
    for (int round = 0; round < 16; ++round) {
      bool changed = SinkDequantize(g);
      changed |= CancelQdqPairs(g);
      changed |= FuseQuantizedMatMul(g);
      changed |= FuseQuantizedConv(g);
      changed |= RemoveDeadNodes(g);
      if (!changed) break;
    }
  }
  RemoveDeadNodes(g);
}

}  // namespace ptq
