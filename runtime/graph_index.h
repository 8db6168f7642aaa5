// What the session's graph fusions ask of a graph (producers, readers, constants) and the edits they
// make to it (nodes replaced or dropped, constants added).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace ptq {

// Read-only index of a graph's nodes by the tensors they produce and read.
class GraphIndex {
 public:
  static constexpr size_t kNone = static_cast<size_t>(-1);

  explicit GraphIndex(const Graph& g);
  const Graph& graph() const { return g_; }

  const Tensor* Constant(const std::string& name) const;
  // The index of the node producing `name`, or kNone.
  size_t Producer(const std::string& name) const;
  // The node producing `name` when it is a node of this ai.onnx op type, else nullptr.
  const Node* ProducerOf(const std::string& name, const char* op_type) const;
  // One entry per reading input (a node reading `name` twice appears twice); kNone for a graph output.
  const std::vector<size_t>& Readers(const std::string& name) const;
  // The reader of `name` when it is its only one and a node, else kNone.
  size_t OnlyReader(const std::string& name) const;

  // Node indices with every node after the producers of its inputs and implicit inputs (Kahn's algorithm,
  // stable in file order). Shorter than the graph when it has a cycle: the nodes on or after it are left out.
  std::vector<size_t> TopologicalOrder() const;

 private:
  const Graph& g_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, std::vector<size_t>> readers_;
};

// A graph under edit: node i of the original is kept, replaced or dropped.
class GraphEdit {
 public:
  explicit GraphEdit(const Graph& g) : out_(g), drop_(g.nodes.size(), false) {}

  // Node i becomes `node` (keeping its name); a node of the "ptq.fused" domain imports that domain.
  void Replace(size_t i, Node node);
  void Drop(size_t i) { drop_[i] = true; }
  bool Changed(size_t i) const { return drop_[i] || replaced_.count(i) > 0; }
  bool Dropped(size_t i) const { return drop_[i]; }
  // Node i as it stands: its replacement, or the original (also when dropped).
  const Node& Current(size_t i) const { return out_.nodes[i]; }
  // Adds a constant under a name derived from `base` that no constant has yet; returns the name.
  std::string AddConstant(const std::string& base, Tensor value);

  // The graph with the replacements made and the dropped nodes removed; then, with
  // remove_unread_dequantize, DequantizeLinear nodes nobody reads any more are removed too.
  Graph Finish(bool remove_unread_dequantize);

 private:
  Graph out_;
  std::vector<bool> drop_;
  std::set<size_t> replaced_;
};

constexpr const char* kFusedDomain = "ptq.fused";

}  // namespace ptq
