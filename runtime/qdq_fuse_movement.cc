// QDQ fusion of DequantizeLinear -> data-movement op -> QuantizeLinear with the same parameters into the
// op on the 8-bit tensor itself (exact: checked for all 256 values when the session is built).
#include <cstring>
#include <set>

#include "runtime/qdq_match.h"

namespace ptq {
namespace {

// Ops that only move or reshape values (their other inputs, shapes and axes, stay as they are).
const std::set<std::string>& MovementOps() {
  static const std::set<std::string> ops = {"Transpose", "Reshape", "Squeeze", "Unsqueeze", "Flatten"};
  return ops;
}

// True when QuantizeLinear q gives back every one of the 256 byte patterns of x's type that x's
// DequantizeLinear turns into float, each node by its own kernel (the same scale and zero point do; a
// scale whose products overflow or vanish does not).
bool RoundTrips(const QdqIndex& index, const DqNode& x, const Node& q) {
  const Tensor* scale = index.Constant(q.inputs[1]);
  const Tensor* zp = q.inputs.size() > 2 && !q.inputs[2].empty() ? index.Constant(q.inputs[2]) : nullptr;
  if (scale == nullptr || zp == nullptr || zp->dtype() != x.zero_point->dtype()) return false;
  try {
    Tensor bytes;
    const Tensor real = index.DequantizeEveryByte(x, &bytes);
    const Tensor back = index.Evaluate(q, {&real, scale, zp});
    return back.dtype() == bytes.dtype() && back.size() == 256 && std::memcmp(back.raw(), bytes.raw(), 256) == 0;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void FuseMovementGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || !MovementOps().count(n.op_type) || n.inputs.empty() || n.outputs.size() != 1) continue;
    DqNode x;
    if (!index.Dequantized(n.inputs[0], false, 0, &x)) continue;
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    if (q == QdqIndex::kNone || !RoundTrips(index, x, g.nodes[q])) continue;
    Node moved = n;
    moved.inputs[0] = x.quantized();
    moved.outputs = {g.nodes[q].outputs[0]};
    out->Replace(i, std::move(moved));
    out->Drop(q);
    ++count->movement;
  }
}

}  // namespace ptq
