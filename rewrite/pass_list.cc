// The rewrite pipeline: which passes run for each format, in which order.
#include "rewrite/passes.h"

namespace ptq {

void RunRewritePasses(RewriteGraph* g, const QuantPlan& plan, QuantFormat format) {
  InsertQdq(g, plan);
  for (int round = 0; round < 16; ++round) {
    // First, so that a DQ read by Shape and one data-movement op can sink below that op.
    bool changed = ReadShapeBeforeDequantize(g);
    if (format == QuantFormat::kQOperator) {
      changed |= SinkDequantize(g);
      changed |= CancelQdqPairs(g);
      changed |= FuseQuantizedMatMul(g);
      changed |= FuseQuantizedConv(g);
    }
    changed |= RemoveDeadNodes(g);
    if (!changed) break;
  }
  RemoveDeadNodes(g);
}

}  // namespace ptq
