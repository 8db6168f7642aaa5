// An editable copy of an ONNX graph for rewrite passes: nodes, initializers, names, and queries.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

// Nodes are kept in a vector; a removed node keeps its slot with an empty op_type until Compact().
// Queries scan the nodes (graphs are at most a few thousand nodes; passes are not hot).
class RewriteGraph {
 public:
  // Takes the graph of `model` (Constant nodes become initializers). REQUIRES: no subgraphs use
  // outer-scope names (If/Loop bodies are left untouched).
  explicit RewriteGraph(const onnx::ModelProto& model);

  std::vector<onnx::NodeProto>& nodes() { return nodes_; }
  const std::vector<onnx::NodeProto>& nodes() const { return nodes_; }

  // Index of the live node producing `tensor`, or -1 (graph input, initializer, unknown).
  int Producer(const std::string& tensor) const;
  // Indices of the live nodes reading `tensor` (a node reading it twice is listed once).
  std::vector<int> Consumers(const std::string& tensor) const;
  bool IsGraphOutput(const std::string& tensor) const { return outputs_.count(tensor) > 0; }
  bool IsGraphInput(const std::string& tensor) const { return inputs_.count(tensor) > 0; }

  bool IsInitializer(const std::string& name) const { return initializers_.count(name) > 0; }
  const onnx::TensorProto& Initializer(const std::string& name) const;  // REQUIRES: IsInitializer
  Tensor InitializerValue(const std::string& name) const;              // decoded
  // Adds an initializer named `name` (which must be new; see NewName).
  void AddInitializer(const std::string& name, const Tensor& value);

  // A tensor/node name not used yet, derived from `base` ("base", else "base_2", ...).
  std::string NewName(const std::string& base);
  // Appends a node; returns its index. Names given must come from NewName or existing tensors.
  int AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
              const std::vector<std::string>& outputs, const std::string& name);
  void RemoveNode(int index);
  // Every input `from` of live nodes (and graph outputs' producers stay) becomes `to`.
  void ReplaceUses(const std::string& from, const std::string& to);

  // Writes the nodes in a topological order (stable: the original order where possible), the
  // initializers that are still used, and clears value_info (types may have changed) into `model`.
  // Throws an internal error when the nodes form a cycle.
  void WriteTo(onnx::ModelProto* model) const;

  const std::string& model_dir() const { return model_dir_; }
  void set_model_dir(const std::string& d) { model_dir_ = d; }

 private:
  void Use(const std::string& name) { used_names_.insert(name); }

  std::vector<onnx::NodeProto> nodes_;
  std::map<std::string, onnx::TensorProto> initializers_;
  std::set<std::string> inputs_, outputs_, used_names_;
  std::string model_dir_;
};

// Attribute helpers on NodeProto.
int64_t GetIntAttr(const onnx::NodeProto& node, const std::string& name, int64_t def);
float GetFloatAttr(const onnx::NodeProto& node, const std::string& name, float def);
void SetIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value);

}  // namespace ptq
