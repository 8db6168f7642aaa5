// Small predicates the float pattern fusions (float_fusion.h) share: constant scalars, the other operand
// of a commutative or ordered binary node, single readers, the QuantizeLinear that alone reads a value.
#pragma once

#include <cmath>
#include <string>

#include "runtime/graph_index.h"

namespace ptq {

// The value of a constant float32 tensor of one element.
inline bool ScalarConstant(const GraphIndex& index, const std::string& name, float* value) {
  const Tensor* t = index.Constant(name);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->size() != 1) return false;
  *value = t->data<float>()[0];
  return true;
}

// True when `name` is a constant float32 scalar within a relative 1e-5 of `want` (exporters round the
// constants of a formula to float32 differently).
inline bool ScalarNear(const GraphIndex& index, const std::string& name, double want) {
  float v;
  return ScalarConstant(index, name, &v) && std::abs(v - want) <= 1e-5 * std::abs(want);
}

// When node n is the ai.onnx binary op `op_type` with `known` as one operand (as input 0 only, unless
// commutative), the other operand's name is stored in *other.
inline bool OtherOperand(const Node& n, const char* op_type, const std::string& known, bool commutative,
                         std::string* other) {
  if (!n.domain.empty() || n.op_type != op_type || n.inputs.size() != 2 || n.outputs.size() != 1) return false;
  if (n.inputs[0] == known) {
    *other = n.inputs[1];
    return true;
  }
  if (commutative && n.inputs[1] == known) {
    *other = n.inputs[0];
    return true;
  }
  return false;
}

// The node that is the only reader of node n's single output (no graph output), or nullptr; its index in *at.
inline const Node* OnlyReaderNode(const GraphIndex& index, const Node& n, size_t* at) {
  if (n.outputs.size() != 1) return nullptr;
  *at = index.OnlyReader(n.outputs[0]);
  return *at == GraphIndex::kNone ? nullptr : &index.graph().nodes[*at];
}

// The QuantizeLinear that alone reads `name` (a float32 to 8 bits with one constant scale and zero point, not yet
// taken by another match), or kNone.
inline size_t QuantizeReader(const GraphIndex& index, const GraphEdit& out, const std::string& name) {
  const size_t q = index.OnlyReader(name);
  if (q == GraphIndex::kNone || out.Changed(q)) return GraphIndex::kNone;
  const Node& n = index.graph().nodes[q];
  if (!n.domain.empty() || n.op_type != "QuantizeLinear" || n.inputs.size() != 3 || n.inputs[0] != name ||
      n.inputs[2].empty() || n.outputs.size() != 1 || n.attrs.GetInt("block_size", 0) != 0) {
    return GraphIndex::kNone;
  }
  const Tensor* scale = index.Constant(n.inputs[1]);
  const Tensor* zp = index.Constant(n.inputs[2]);
  const bool eight_bit = zp && (zp->dtype() == DataType::kUint8 || zp->dtype() == DataType::kInt8);
  return scale && scale->dtype() == DataType::kFloat && scale->size() == 1 && eight_bit && zp->size() == 1
             ? q
             : GraphIndex::kNone;
}

}  // namespace ptq
