// Pass: DequantizeLinear (per tensor) -> data-movement op -> QuantizeLinear with the same parameters:
// the op runs on the int8 tensor, and its int8 output replaces the QuantizeLinear's. A constant int8
// table (embedding) moves through Gather and is dequantized after it.
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {
namespace {

// Ops whose input 0 is the data and whose other inputs are shape-like (Reshape's shape, Slice's
// starts, Gather's indices): the int8 data moves through unchanged.
bool Movable(const onnx::NodeProto& n) {
  static const char* kOps[] = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten", "Identity", "MaxPool",
                               "Slice", "Gather"};
  for (const char* op : kOps) {
    if (n.op_type() == op) return n.output_size() == 1;
  }
  return false;
}

struct SinkMatch {
  int op = -1;
  QdqNode dq, q;
};

std::optional<SinkMatch> Match(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.nodes()[static_cast<size_t>(i)];
  if (!Movable(n) || n.input_size() < 1) return std::nullopt;
  auto dq = ProducerDq(g, n.input(0));
  if (!dq || !IsScalarParam(g, dq->scale)) return std::nullopt;
  if (g.IsInitializer(dq->x)) return SinkMatch{i, *dq, QdqNode{}};  // a constant int8 table (embedding)
  const std::vector<int> readers = g.Consumers(n.output(0));
  if (readers.size() != 1 || g.IsGraphOutput(n.output(0)) ||
      g.nodes()[static_cast<size_t>(readers[0])].op_type() != "QuantizeLinear") {
    return std::nullopt;
  }
  const QdqNode q = AsQdq(g, readers[0]);
  if (!SameQuantization(g, *dq, q)) return std::nullopt;
  return SinkMatch{i, *dq, q};
}

}  // namespace

bool SinkDequantize(RewriteGraph* g) {
  bool changed = false;
  for (size_t i = 0; i < g->nodes().size(); ++i) {
    auto m = Match(*g, static_cast<int>(i));
    if (!m) continue;
    if (m->q.index < 0) {  // constant int8 data: the op moves int8 rows, a DequantizeLinear follows
      const onnx::NodeProto op = g->nodes()[i];
      const std::string moved = g->NewName(op.output(0) + "/quantized");
      g->nodes()[i].set_input(0, m->dq.x);
      g->nodes()[i].set_output(0, moved);
      g->AddNode("DequantizeLinear", {moved, m->dq.scale, m->dq.zero_point}, {op.output(0)},
                 g->NewName(op.name() + "/DequantizeLinear"));
      changed = true;
      continue;
    }
    auto& op = g->nodes()[i];
    op.set_input(0, m->dq.x);   // the op reads the int8 tensor
    op.set_output(0, m->q.y);   // and writes what the QuantizeLinear wrote
    g->RemoveNode(m->q.index);  // the DequantizeLinear stays while other readers need it
    changed = true;
  }
  return changed;
}

}  // namespace ptq
