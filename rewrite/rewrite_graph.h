// An editable copy of an ONNX graph for rewrite passes: nodes, initializers, names, and indexed queries.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

class ExternalDataWriter;

// Nodes are kept in slots; a removed node keeps its slot with an empty op_type until WriteTo. Every
// edit goes through the methods below, which keep an index of each tensor's producer and readers, so
// Producer and Consumers cost the size of their answer, not the graph's: the passes stay linear in
// the node count.
class RewriteGraph {
 public:
  // Takes the graph of `model` (Constant nodes become initializers), copying its initializers.
  // REQUIRES: no subgraphs use outer-scope names (If/Loop bodies are left untouched).
  explicit RewriteGraph(const onnx::ModelProto& model);
  // The same, moving the initializers out of `model` (left without any) instead of copying them.
  explicit RewriteGraph(onnx::ModelProto* model);

  int size() const { return static_cast<int>(nodes_.size()); }  // node slots, live or removed
  // The node in slot i (op_type "" when removed). Counted in node_visits().
  const onnx::NodeProto& node(int i) const {
    ++visits_;
    return nodes_[static_cast<size_t>(i)];
  }

  // Slot of the live node producing `tensor`, or -1 (graph input, initializer, unknown).
  int Producer(const std::string& tensor) const;
  // Slots of the live nodes reading `tensor`, ascending (a node reading it twice is listed once).
  std::vector<int> Consumers(const std::string& tensor) const;
  bool IsGraphOutput(const std::string& tensor) const { return outputs_.count(tensor) > 0; }
  bool IsGraphInput(const std::string& tensor) const { return inputs_.count(tensor) > 0; }

  bool IsInitializer(const std::string& name) const { return initializers_.count(name) > 0; }
  // Name, element type and dims (the data may have moved: read values with InitializerValue).
  // REQUIRES: IsInitializer.
  const onnx::TensorProto& Initializer(const std::string& name) const;
  // The decoded value. It may share its buffer with the graph's copy (or map the model's external data):
  // read it, copy it before changing it. An inline initializer's data moves from its proto into the value
  // at the first call, so it is held once.
  Tensor InitializerValue(const std::string& name) const;
  std::vector<std::string> InitializerNames() const;
  // Adds an initializer named `name` (which must be new; see NewName). With a data writer, a large one
  // is written to the output's external data at once.
  void AddInitializer(const std::string& name, const Tensor& value);

  // Where AddInitializer and WriteTo put tensors of ExternalDataWriter::kMinBytes and more: the output's
  // external data (nullptr, the default: inside the model).
  void set_data_writer(ExternalDataWriter* writer) { writer_ = writer; }

  // A tensor/node name not used yet, derived from `base` ("base", else "base_2", ...).
  std::string NewName(const std::string& base);
  // Appends a node; returns its slot. Names given must come from NewName or existing tensors.
  int AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
              const std::vector<std::string>& outputs, const std::string& name);
  void RemoveNode(int index);
  void SetInput(int index, int k, const std::string& tensor);
  void AddInput(int index, const std::string& tensor);  // appended (an empty optional slot is filled)
  void SetOutput(int index, int k, const std::string& tensor);
  void SetIntAttribute(int index, const std::string& name, int64_t value);
  void CopyAttributes(int index, const onnx::NodeProto& from);
  // Every input `from` of live nodes becomes `to` (graph outputs keep their names).
  void ReplaceUses(const std::string& from, const std::string& to);

  // The integer tensors the passes created and the float tensor each stands for ("x/quantized" -> "x").
  void SetTwin(const std::string& int8_tensor, const std::string& float_tensor) { twins_[int8_tensor] = float_tensor; }
  const std::map<std::string, std::string>& twins() const { return twins_; }

  // Nodes examined so far: node() calls and the answers of Producer and Consumers.
  int64_t node_visits() const { return visits_; }

  // Writes the nodes in a topological order (stable: the original order where possible), the
  // initializers that are still used, and clears value_info (types may have changed) into `model`.
  // Initializers move out of the graph (written to the data writer when large, else inline); none refers
  // to the input model's external data. Throws an internal error when the nodes form a cycle.
  void WriteTo(onnx::ModelProto* model);

  const std::string& model_dir() const { return model_dir_; }
  void set_model_dir(const std::string& d) { model_dir_ = d; }

 private:
  void Use(const std::string& name) { used_names_.insert(name); }
  void Index(int index);
  void Unindex(int index);
  void DropReader(const std::string& tensor, int index);

  void Take(const onnx::GraphProto& g, google::protobuf::RepeatedPtrField<onnx::TensorProto>* initializers);
  bool InWriter(const onnx::TensorProto& t) const;
  void Emit(const std::string& name, onnx::TensorProto* out);

  std::vector<onnx::NodeProto> nodes_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> readers_;  // one entry per input slot reading it
  // Decoding is logically const: InitializerValue moves an inline initializer's bytes from its proto
  // (which keeps name, type and dims) into values_.
  mutable std::map<std::string, onnx::TensorProto> initializers_;
  mutable std::map<std::string, Tensor> values_;
  ExternalDataWriter* writer_ = nullptr;
  std::set<std::string> inputs_, outputs_, used_names_;
  std::map<std::string, std::string> twins_;
  std::string model_dir_;
  mutable int64_t visits_ = 0;
};

// Attribute helpers on NodeProto.
int64_t GetIntAttr(const onnx::NodeProto& node, const std::string& name, int64_t def);
float GetFloatAttr(const onnx::NodeProto& node, const std::string& name, float def);
void SetIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value);

}  // namespace ptq
