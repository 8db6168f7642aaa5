// What the QDQ fusions (qdq_fusion.h) ask of a graph: producers, readers, constants, the DequantizeLinear
// and QuantizeLinear nodes around an op, and the fused graph they build.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/qdq_fusion.h"

namespace ptq {

constexpr const char* kFusedDomain = "ptq.fused";

// A DequantizeLinear with constant float scale and 8-bit zero point.
struct DqNode {
  const Node* node = nullptr;
  const Tensor* scale = nullptr;
  const Tensor* zero_point = nullptr;

  const std::string& quantized() const { return node->inputs[0]; }
};

// Read-only index of the graph being fused.
class QdqIndex {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  explicit QdqIndex(const Graph& g);
  const Graph& graph() const { return g_; }

  const Tensor* Constant(const std::string& name) const;
  // The index of the node producing `name`, or kNone.
  size_t Producer(const std::string& name) const;

  // The DequantizeLinear producing `name` with constant float scale and 8-bit zero point (of the same
  // type as a constant input when `weight`): per tensor, or per channel along `axis` for a weight.
  // Returns false otherwise.
  bool Dequantized(const std::string& name, bool weight, int64_t axis, DqNode* dq) const;

  // The QuantizeLinear that is the only reader of `name` (per-tensor constant scale and 8-bit zero
  // point), or kNone; `name` must not be a graph output.
  size_t OnlyQuantizeReader(const std::string& name) const;

  // Runs node n's kernel on `inputs` and returns its first output.
  Tensor Evaluate(const Node& n, const std::vector<const Tensor*>& inputs) const;

 private:
  const Graph& g_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> readers_;  // node indices; graph outputs count as kNone
};

// The fused graph under construction: node i of the original graph is kept, replaced or dropped.
class FusedGraph {
 public:
  explicit FusedGraph(const Graph& g) : out_(g), drop_(g.nodes.size(), false) {}

  // Node i becomes `fused` (its name kept); the QuantizeLinear node `q` (unless kNone) is dropped.
  void Replace(size_t i, Node fused, size_t q);
  // Adds a constant under a name derived from `base` that no constant has yet; returns the name.
  std::string AddConstant(const std::string& base, Tensor value);

  QdqFusionCount& count() { return count_; }
  // The graph with the replacements made, dropped nodes removed and DequantizeLinear nodes nobody
  // reads any more removed.
  Graph Finish();

 private:
  Graph out_;
  std::vector<bool> drop_;
  QdqFusionCount count_;
};

// The fusions, one per file, in the order FuseQdqGroups runs them. Each leaves alone the nodes an
// earlier one replaced or dropped (they match disjoint op types).
void FuseMatMulConvGroups(const QdqIndex& index, FusedGraph* out);  // qdq_fuse_matmul_conv.cc
void FuseTableGroups(const QdqIndex& index, FusedGraph* out);      // qdq_fuse_table.cc
void FuseBinaryGroups(const QdqIndex& index, FusedGraph* out);     // qdq_fuse_binary.cc
void FusePoolGroups(const QdqIndex& index, FusedGraph* out);       // qdq_fuse_pool.cc

}  // namespace ptq
