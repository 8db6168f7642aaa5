// What the QDQ fusions (qdq_fusion.h) ask of a graph beyond GraphIndex: the DequantizeLinear and
// QuantizeLinear nodes around an op, and the kernels that evaluate a node once.
#pragma once

#include <string>
#include <vector>

#include "runtime/graph_index.h"
#include "runtime/qdq_fusion.h"

namespace ptq {

// A DequantizeLinear with constant float scale and 8-bit zero point.
struct DqNode {
  const Node* node = nullptr;
  const Tensor* scale = nullptr;
  const Tensor* zero_point = nullptr;

  const std::string& quantized() const { return node->inputs[0]; }
};

class QdqIndex : public GraphIndex {
 public:
  explicit QdqIndex(const Graph& g) : GraphIndex(g) {}

  // The DequantizeLinear producing `name` with constant float scale and 8-bit zero point (of the same
  // type as a constant input when `weight`): per tensor, or per channel along `axis` for a weight.
  // Returns false otherwise.
  bool Dequantized(const std::string& name, bool weight, int64_t axis, DqNode* dq) const;

  // The QuantizeLinear that is the only reader of `name` (per-tensor constant scale and 8-bit zero
  // point), or kNone; `name` must not be a graph output.
  size_t OnlyQuantizeReader(const std::string& name) const;

  // Runs node n's kernel on `inputs` and returns its first output.
  Tensor Evaluate(const Node& n, const std::vector<const Tensor*>& inputs) const;

  // x's DequantizeLinear, by its own kernel, of the 256 byte patterns of its 8-bit type in order; *bytes
  // (when given) gets the patterns.
  Tensor DequantizeEveryByte(const DqNode& x, Tensor* bytes = nullptr) const;
};

// The fusions, one per file, in the order FuseQdqGroups runs them; they match disjoint op types (a MatMul's
// bias Add, of a float and an int32 or float constant, is not one FuseBinaryGroups matches). A QuantizeLinear
// or bias Add folded into a fused node is dropped from `out`.
void FuseMatMulConvGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);  // qdq_fuse_matmul_conv.cc
void FuseTableGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);      // qdq_fuse_table.cc
void FuseBinaryGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);     // qdq_fuse_binary.cc
void FuseBinaryOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);    // qdq_fuse_binary_output.cc
void FuseConvOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);      // qdq_fuse_conv_output.cc
void FusePoolGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);       // qdq_fuse_pool.cc
void FuseIntegerOutputs(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);   // qdq_fuse_integer_output.cc
void FuseMovementGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count);   // qdq_fuse_movement.cc

}  // namespace ptq
