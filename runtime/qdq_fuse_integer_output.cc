// QOperator fusion of MatMulInteger [-> Add of a constant int32 bias] -> DequantizeLinear (the form ptq
// writes for a MatMul with a bias or float readers, and for attention's Q K^T) into one
// MatMulIntegerToFloat storing the float output: float(acc + bias) * scale, the bits of the nodes (for
// positive scales).
#include <vector>

#include "runtime/qdq_match.h"

namespace ptq {
namespace {

// t is int32 and all zeros.
bool ZeroInt32(const Tensor& t) {
  if (t.dtype() != DataType::kInt32) return false;
  for (int64_t i = 0; i < t.size(); ++i) {
    if (t.data<int32_t>()[i] != 0) return false;
  }
  return true;
}

// The readers of `name` besides `reader` when they are all Shape or Size nodes (they read only its shape,
// which the DequantizeLinear's output has too); false when another node or a graph output reads it.
bool OnlyShapeReadersBesides(const QdqIndex& index, const std::string& name, size_t reader, std::vector<size_t>* shapes) {
  bool found = false;
  for (size_t r : index.Readers(name)) {
    if (r == reader) {
      found = true;
      continue;
    }
    if (r == GraphIndex::kNone) return false;
    const Node& n = index.graph().nodes[r];
    if (!n.domain.empty() || (n.op_type != "Shape" && n.op_type != "Size")) return false;
    shapes->push_back(r);
  }
  return found;
}

}  // namespace

void FuseIntegerOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& dq = g.nodes[i];
    if (!dq.domain.empty() || dq.op_type != "DequantizeLinear" || dq.inputs.size() < 2 || out->Changed(i)) continue;
    const bool has_zp = dq.inputs.size() > 2 && !dq.inputs[2].empty();
    const Tensor* zp = has_zp ? index.Constant(dq.inputs[2]) : nullptr;
    const Tensor* scale = index.Constant(dq.inputs[1]);
    if (!scale || scale->dtype() != DataType::kFloat || scale->rank() > 1 || (has_zp && (!zp || !ZeroInt32(*zp)))) {
      continue;
    }
    // acc [+ bias] read only by this DequantizeLinear (and by Shape nodes, which then read its output).
    std::vector<size_t> shapes;
    if (!OnlyShapeReadersBesides(index, dq.inputs[0], i, &shapes)) continue;
    size_t add_at = GraphIndex::kNone, mm_at = index.Producer(dq.inputs[0]);
    std::string int_bias;
    if (mm_at != GraphIndex::kNone && g.nodes[mm_at].op_type == "Add" && g.nodes[mm_at].domain.empty()) {
      const Node& add = g.nodes[mm_at];
      if (add.inputs.size() != 2) continue;
      const Tensor* b0 = index.Constant(add.inputs[0]);
      const Tensor* b1 = index.Constant(add.inputs[1]);
      if ((b0 == nullptr) == (b1 == nullptr)) continue;
      int_bias = b1 ? add.inputs[1] : add.inputs[0];
      const Tensor* bias = b1 ? b1 : b0;
      add_at = mm_at;
      mm_at = index.Producer(b1 ? add.inputs[0] : add.inputs[1]);
      if (bias->dtype() != DataType::kInt32 || bias->rank() != 1) continue;
    }
    const size_t acc_reader = add_at == GraphIndex::kNone ? i : add_at;
    if (mm_at == GraphIndex::kNone || index.OnlyReader(g.nodes[mm_at].outputs[0]) != acc_reader) continue;
    bool shapes_free = true;
    for (size_t r : shapes) shapes_free = shapes_free && !out->Changed(r);
    if (!shapes_free) continue;
    const Node& mm = g.nodes[mm_at];
    if (!mm.domain.empty() || mm.op_type != "MatMulInteger" || mm.inputs.size() < 2) continue;
    if (out->Changed(mm_at) || (add_at != GraphIndex::kNone && out->Changed(add_at))) continue;
    // A constant 2-D B (weights: a scale per column of the product, the last axis of whatever rank, and a
    // bias allowed), or a computed one (attention's Q K^T: one scale, no bias).
    const Tensor* b = index.Constant(mm.inputs[1]);
    const int64_t axis = dq.attrs.GetInt("axis", 1);
    if (b == nullptr) {
      if (scale->size() != 1 || !int_bias.empty()) continue;
    } else {
      const int64_t N = b->rank() == 2 ? b->dim(1) : -1;
      if (N < 0 || (scale->size() != 1 && !(scale->size() == N && axis == -1))) continue;
      if (!int_bias.empty() && index.Constant(int_bias)->size() != N) continue;
    }
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "MatMulIntegerToFloat";
    const std::string one = out->AddConstant(dq.outputs[0] + "/unit_scale", Tensor::Scalar<float>(1.0f));
    fused.inputs = {mm.inputs[0], mm.inputs[1], one, dq.inputs[1], mm.inputs.size() > 2 ? mm.inputs[2] : "",
                    mm.inputs.size() > 3 ? mm.inputs[3] : "", "", int_bias};
    fused.outputs = dq.outputs;
    for (size_t r : shapes) {
      Node shape = g.nodes[r];
      shape.inputs[0] = dq.outputs[0];
      out->Replace(r, std::move(shape));
    }
    out->Replace(i, std::move(fused));
    out->Drop(mm_at);
    if (add_at != GraphIndex::kNone) out->Drop(add_at);
    ++count->integer_outputs;
  }
}

}  // namespace ptq
