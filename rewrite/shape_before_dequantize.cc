// Pass: Shape or Size of a DequantizeLinear output reads the DequantizeLinear's input instead (same
// shape), so a DequantizeLinear kept only for shape computations becomes dead. QuantizeLinear outputs
// are left alone: reading the float tensor before one would give its producer a second reader and
// stop the QOperator fusions (Conv -> QuantizeLinear becoming QLinearConv).
#include "rewrite/passes.h"

namespace ptq {
namespace {

bool ReadsOnlyShape(const onnx::NodeProto& n) {
  return (n.op_type() == "Shape" || n.op_type() == "Size") && n.input_size() == 1;
}

struct ShapeMatch {
  int node = -1;
  std::string source;  // the DequantizeLinear's input: the same shape as the node's input
};

std::optional<ShapeMatch> Match(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (!ReadsOnlyShape(n)) return std::nullopt;
  const int p = g.Producer(n.input(0));
  if (p < 0 || g.node(p).op_type() != "DequantizeLinear") return std::nullopt;
  return ShapeMatch{i, g.node(p).input(0)};
}

}  // namespace

bool ReadShapeBeforeDequantize(RewriteGraph* g) {
  bool changed = false;
  for (int i = 0; i < g->size(); ++i) {
    auto m = Match(*g, i);
    if (!m) continue;
    g->SetInput(i, 0, m->source);  // attributes (Shape's start/end) are kept
    changed = true;  // the DequantizeLinear goes with remove_dead_nodes.cc when nothing else reads it
  }
  return changed;
}

}  // namespace ptq
