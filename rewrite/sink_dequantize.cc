// Pass: a per-tensor DequantizeLinear moves below the data-movement op that reads it, so the op runs
// on the 8-bit tensor. Exact: these ops only copy, drop or (MaxPool) take the maximum of elements, and
// dequantizing, (q - zero_point) * scale with scale > 0, is increasing. When the op's only reader is a
// QuantizeLinear with the same parameters, the op writes that QuantizeLinear's output directly.
// Otherwise the DequantizeLinear moves below the op when the op is its only reader: it moves on down a
// chain such as MaxPool -> Flatten and disappears against an equal QuantizeLinear at the end (as above,
// or cancel_qdq.cc); with other parameters the DequantizeLinear -> QuantizeLinear pair left after the
// chain is the requantization. A constant int8 table (embedding) moves through Gather the same way
// even when the table has other readers.
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"
#include "runtime/value_movement.h"

namespace ptq {
namespace {

// Ops whose input 0 is the data and whose other inputs are shape-like (Reshape's shape, Slice's
// starts, Gather's indices): the int8 data moves through unchanged (runtime/value_movement.h).
bool Movable(const onnx::NodeProto& n) { return MovesInt8Values(n.op_type()) && n.output_size() == 1; }

// True when the DequantizeLinear reads int8 or uint8 (its zero point says so; without one the input
// may be int32, which MaxPool does not take and which moving gains nothing for).
bool EightBit(const RewriteGraph& g, const QdqNode& dq) {
  if (dq.zero_point.empty() || !g.IsInitializer(dq.zero_point)) return false;
  const int t = g.Initializer(dq.zero_point).data_type();
  return t == onnx::TensorProto::INT8 || t == onnx::TensorProto::UINT8;
}

// MaxPool commutes with dequantizing only for an increasing one (scale > 0) on a type it accepts.
bool CommutesWith(const RewriteGraph& g, const onnx::NodeProto& n, const QdqNode& dq) {
  if (n.op_type() != "MaxPool") return true;
  return EightBit(g, dq) && g.InitializerValue(dq.scale).data<float>()[0] > 0.0f;
}

struct SinkMatch {
  int op = -1;
  QdqNode dq;
  std::optional<QdqNode> q;  // the op's only reader, with dq's parameters: it disappears
};

std::optional<SinkMatch> Match(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (!Movable(n) || n.input_size() < 1) return std::nullopt;
  auto dq = ProducerDq(g, n.input(0));
  if (!dq || !IsScalarParam(g, dq->scale) || !CommutesWith(g, n, *dq)) return std::nullopt;
  if (g.IsInitializer(dq->x)) return SinkMatch{i, *dq, std::nullopt};  // a constant int8 table (embedding)
  const std::vector<int> readers = g.Consumers(n.output(0));
  if (readers.size() == 1 && !g.IsGraphOutput(n.output(0)) &&
      g.node(readers[0]).op_type() == "QuantizeLinear") {
    const QdqNode q = AsQdq(g, readers[0]);
    if (SameQuantization(g, *dq, q)) return SinkMatch{i, *dq, q};
  }
  // Move the DequantizeLinear only when it goes as a whole (no second copy for other readers).
  if (g.Consumers(dq->y).size() != 1 || g.IsGraphOutput(dq->y) || !EightBit(g, *dq)) return std::nullopt;
  return SinkMatch{i, *dq, std::nullopt};
}

void Apply(RewriteGraph* g, const SinkMatch& m) {
  const int i = m.op;
  if (m.q) {
    g->RemoveNode(m.q->index);      // the DequantizeLinear stays while other readers need it
    g->SetInput(i, 0, m.dq.x);      // the op reads the int8 tensor
    g->SetOutput(i, 0, m.q->y);     // and writes what the QuantizeLinear wrote
    return;
  }
  const onnx::NodeProto op = g->node(i);  // a copy: AddNode may reallocate the nodes
  const std::string moved = g->NewName(op.output(0) + "/quantized");
  g->SetTwin(moved, op.output(0));
  g->SetInput(i, 0, m.dq.x);
  g->SetOutput(i, 0, moved);
  g->AddNode("DequantizeLinear", {moved, m.dq.scale, m.dq.zero_point}, {op.output(0)},
             g->NewName(op.name() + "/DequantizeLinear"));
  if (g->Consumers(m.dq.y).empty() && !g->IsGraphOutput(m.dq.y)) g->RemoveNode(m.dq.index);
}

}  // namespace

bool SinkDequantize(RewriteGraph* g) {
  bool changed = false;
  for (bool again = true; again;) {  // a moved DequantizeLinear may reach the next op of a chain
    again = false;
    for (int i = 0; i < g->size(); ++i) {
      auto m = Match(*g, i);
      if (!m) continue;
      Apply(g, *m);
      again = changed = true;
    }
  }
  return changed;
}

}  // namespace ptq
