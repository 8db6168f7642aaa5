// QDQ fusion of DequantizeLinear -> element-wise unary op -> QuantizeLinear on 8-bit values into a
// 256-entry LookupTable computed by the three nodes' own kernels (exact by construction).
#include <set>

#include "runtime/qdq_match.h"

namespace ptq {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

// The unary element-wise ops a table can stand for (one tensor input; Clip's bounds constant).
const std::set<std::string>& TableOps() {
  static const std::set<std::string> ops = {
      "Abs", "Ceil", "Celu", "Clip", "Cos", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish",
      "LeakyRelu", "Log", "Mish", "Neg", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Softplus",
      "Softsign", "Sqrt", "Tanh", "ThresholdedRelu"};
  return ops;
}

// *table = QuantizeLinear(op(DequantizeLinear(b))) for the 256 byte patterns b of x's type, each node
// by its own kernel; false when the op reads a computed input or a kernel refuses (the literal run
// then reports it).
bool Table(const QdqIndex& index, const DqNode& x, const Node& op, const Node& q, Tensor* table) {
  std::vector<const Tensor*> op_inputs = {nullptr};
  for (size_t i = 1; i < op.inputs.size(); ++i) {
    if (op.inputs[i].empty()) {
      op_inputs.push_back(nullptr);
      continue;
    }
    const Tensor* c = index.Constant(op.inputs[i]);
    if (c == nullptr) return false;
    op_inputs.push_back(c);
  }
  try {
    const Tensor real = index.DequantizeEveryByte(x);
    op_inputs[0] = &real;
    const Tensor applied = index.Evaluate(op, op_inputs);
    if (applied.dtype() != DataType::kFloat || applied.size() != 256) return false;
    *table = index.Evaluate(q, {&applied, index.Constant(q.inputs[1]), index.Constant(q.inputs[2])});
    return Is8Bit(table->dtype()) && table->size() == 256;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace

void FuseTableGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || !TableOps().count(n.op_type) || n.inputs.empty() || n.outputs.size() != 1) continue;
    DqNode x;
    if (!index.Dequantized(n.inputs[0], false, 0, &x)) continue;
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    Tensor table;
    if (q == QdqIndex::kNone || !Table(index, x, n, g.nodes[q], &table)) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "LookupTable";
    fused.inputs = {x.quantized(), out->AddConstant(n.outputs[0] + "/table", std::move(table))};
    fused.outputs = {g.nodes[q].outputs[0]};
    out->Replace(i, std::move(fused));
    out->Drop(q);
    ++count->tables;
  }
}

}  // namespace ptq
