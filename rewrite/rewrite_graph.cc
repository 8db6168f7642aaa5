// RewriteGraph: node and initializer bookkeeping, the producer/reader index, name generation and the
// topological write-back.
#include "rewrite/rewrite_graph.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <unordered_map>

#include "runtime/error.h"
#include "runtime/external_data_writer.h"
#include "runtime/tensor_proto.h"

namespace ptq {

RewriteGraph::RewriteGraph(const onnx::ModelProto& model) {
  google::protobuf::RepeatedPtrField<onnx::TensorProto> copies(model.graph().initializer());
  Take(model.graph(), &copies);
}

RewriteGraph::RewriteGraph(onnx::ModelProto* model) {
  google::protobuf::RepeatedPtrField<onnx::TensorProto> taken;
  taken.Swap(model->mutable_graph()->mutable_initializer());
  Take(model->graph(), &taken);
}

void RewriteGraph::Take(const onnx::GraphProto& g, google::protobuf::RepeatedPtrField<onnx::TensorProto>* initializers) {
  for (auto& t : *initializers) {
    Use(t.name());
    initializers_[t.name()] = std::move(t);
  }
  for (const auto& v : g.input()) {
    if (!initializers_.count(v.name())) inputs_.insert(v.name());
    Use(v.name());
  }
  for (const auto& v : g.output()) {
    outputs_.insert(v.name());
    Use(v.name());
  }
  for (const auto& n : g.node()) {
    Use(n.name());
    for (const auto& o : n.output()) Use(o);
    for (const auto& i : n.input()) Use(i);
    if (n.op_type() == "Constant" && n.domain().empty() && n.output_size() == 1 && n.attribute_size() == 1 &&
        n.attribute(0).name() == "value") {
      onnx::TensorProto t = n.attribute(0).t();
      t.set_name(n.output(0));
      initializers_[n.output(0)] = std::move(t);
      continue;
    }
    nodes_.push_back(n);
    Index(static_cast<int>(nodes_.size()) - 1);
  }
}

void RewriteGraph::Index(int index) {
  const onnx::NodeProto& n = nodes_[static_cast<size_t>(index)];
  for (const auto& o : n.output()) {
    if (!o.empty()) producer_[o] = index;
  }
  for (const auto& i : n.input()) {
    if (!i.empty()) readers_[i].push_back(index);
  }
}

void RewriteGraph::DropReader(const std::string& tensor, int index) {
  auto it = readers_.find(tensor);
  if (it == readers_.end()) return;
  auto& v = it->second;
  const auto pos = std::find(v.begin(), v.end(), index);
  if (pos != v.end()) v.erase(pos);
  if (v.empty()) readers_.erase(it);
}

void RewriteGraph::Unindex(int index) {
  const onnx::NodeProto& n = nodes_[static_cast<size_t>(index)];
  for (const auto& o : n.output()) {
    auto it = producer_.find(o);
    if (it != producer_.end() && it->second == index) producer_.erase(it);
  }
  for (const auto& i : n.input()) {
    if (!i.empty()) DropReader(i, index);
  }
}

int RewriteGraph::Producer(const std::string& tensor) const {
  const auto it = producer_.find(tensor);
  if (it == producer_.end()) return -1;
  ++visits_;
  return it->second;
}

std::vector<int> RewriteGraph::Consumers(const std::string& tensor) const {
  const auto it = readers_.find(tensor);
  if (it == readers_.end()) return {};
  std::vector<int> out = it->second;
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  visits_ += static_cast<int64_t>(out.size());
  return out;
}

const onnx::TensorProto& RewriteGraph::Initializer(const std::string& name) const {
  auto it = initializers_.find(name);
  PTQ_ENFORCE(it != initializers_.end(), "no initializer '", name, "'");
  return it->second;
}

namespace {

bool SameFolder(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec);
}

}  // namespace

bool RewriteGraph::InWriter(const onnx::TensorProto& t) const {
  if (!writer_ || t.data_location() != onnx::TensorProto::EXTERNAL) return false;
  for (const auto& e : t.external_data()) {
    if (e.key() == "location") return e.value() == writer_->location();
  }
  return false;
}

Tensor RewriteGraph::InitializerValue(const std::string& name) const {
  const auto v = values_.find(name);
  if (v != values_.end()) return v->second;
  auto it = initializers_.find(name);
  PTQ_ENFORCE(it != initializers_.end(), "no initializer '", name, "'");
  onnx::TensorProto& t = it->second;
  const Tensor value =
      TensorFromProto(t, InWriter(t) ? writer_->folder() : model_dir_, "initializer '" + name + "'", nullptr, ExternalRead::kMap);
  if (t.data_location() != onnx::TensorProto::EXTERNAL) {  // mapped external data is not kept: mapped again when read
    ReleaseTensorData(&t);
    values_[name] = value;
  }
  return value;
}

std::vector<std::string> RewriteGraph::InitializerNames() const {
  std::vector<std::string> names;
  for (const auto& kv : initializers_) names.push_back(kv.first);
  return names;
}

void RewriteGraph::AddInitializer(const std::string& name, const Tensor& value) {
  onnx::TensorProto& t = initializers_[name];
  if (writer_ && static_cast<int64_t>(value.nbytes()) >= ExternalDataWriter::kMinBytes) {
    writer_->Put(value, name, &t);  // written now: the graph keeps the reference only
  } else {
    SetTensorProtoHeader(value, name, &t);
    values_[name] = value;
  }
  Use(name);
}

// Moves initializer `name` into `out`: decoded values are encoded again (into the data writer when
// large). Without a writer, tensors of the input model's external data are read into the model; with
// one, references to files in the writer's folder stay (AddModelFiles copies them into the output's
// data or inline, so that a model that is never written, a fallback candidate, does not copy them),
// others are copied into the writer.
void RewriteGraph::Emit(const std::string& name, onnx::TensorProto* out) {
  onnx::TensorProto& t = initializers_.at(name);
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  const bool large_inline = writer_ && !external && IsSupportedDataType(static_cast<DataType>(t.data_type())) &&
                            t.ByteSizeLong() >= static_cast<size_t>(ExternalDataWriter::kMinBytes);
  const bool kept_external = writer_ && external && (InWriter(t) || SameFolder(model_dir_, writer_->folder()));
  if (!values_.count(name) && !large_inline && (kept_external || !external)) {
    *out = std::move(t);
    return;
  }
  const Tensor value = InitializerValue(name);
  values_.erase(name);
  if (writer_) {
    writer_->Put(value, name, out);
  } else {
    TensorToProto(value, name, out);
  }
}

std::string RewriteGraph::NewName(const std::string& base) {
  std::string name = base;
  for (int k = 2; used_names_.count(name); ++k) name = base + "_" + std::to_string(k);
  Use(name);
  return name;
}

int RewriteGraph::AddNode(const std::string& op_type, const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs, const std::string& name) {
  onnx::NodeProto n;
  n.set_op_type(op_type);
  n.set_name(name);
  for (const auto& i : inputs) n.add_input(i);
  for (const auto& o : outputs) {
    n.add_output(o);
    Use(o);
  }
  Use(name);
  nodes_.push_back(std::move(n));
  Index(static_cast<int>(nodes_.size()) - 1);
  return static_cast<int>(nodes_.size()) - 1;
}

void RewriteGraph::RemoveNode(int index) {
  Unindex(index);
  nodes_[static_cast<size_t>(index)] = onnx::NodeProto();
}

void RewriteGraph::SetInput(int index, int k, const std::string& tensor) {
  onnx::NodeProto& n = nodes_[static_cast<size_t>(index)];
  if (n.input(k) == tensor) return;
  if (!n.input(k).empty()) DropReader(n.input(k), index);
  n.set_input(k, tensor);
  if (!tensor.empty()) readers_[tensor].push_back(index);
}

void RewriteGraph::AddInput(int index, const std::string& tensor) {
  onnx::NodeProto& n = nodes_[static_cast<size_t>(index)];
  if (n.input_size() > 0 && n.input(n.input_size() - 1).empty()) {
    SetInput(index, n.input_size() - 1, tensor);
    return;
  }
  n.add_input(tensor);
  if (!tensor.empty()) readers_[tensor].push_back(index);
}

void RewriteGraph::SetOutput(int index, int k, const std::string& tensor) {
  onnx::NodeProto& n = nodes_[static_cast<size_t>(index)];
  const auto it = producer_.find(n.output(k));
  if (it != producer_.end() && it->second == index) producer_.erase(it);
  n.set_output(k, tensor);
  Use(tensor);
  if (!tensor.empty()) producer_[tensor] = index;
}

void RewriteGraph::SetIntAttribute(int index, const std::string& name, int64_t value) {
  SetIntAttr(&nodes_[static_cast<size_t>(index)], name, value);
}

void RewriteGraph::CopyAttributes(int index, const onnx::NodeProto& from) {
  *nodes_[static_cast<size_t>(index)].mutable_attribute() = from.attribute();
}

void RewriteGraph::ReplaceUses(const std::string& from, const std::string& to) {
  for (int i : Consumers(from)) {
    for (int k = 0; k < nodes_[static_cast<size_t>(i)].input_size(); ++k) {
      if (nodes_[static_cast<size_t>(i)].input(k) == from) SetInput(i, k, to);
    }
  }
}

void RewriteGraph::WriteTo(onnx::ModelProto* model) {
  // Kahn's algorithm, taking ready nodes in their slot order.
  std::map<std::string, int> producer;
  std::vector<int> live;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].op_type().empty()) continue;
    live.push_back(static_cast<int>(i));
    for (const auto& o : nodes_[i].output()) {
      if (!o.empty()) producer[o] = static_cast<int>(i);
    }
  }
  std::map<int, int> pending;
  std::map<int, std::vector<int>> users;
  for (int i : live) {
    std::set<int> deps;
    for (const auto& in : nodes_[static_cast<size_t>(i)].input()) {
      auto it = producer.find(in);
      if (it != producer.end() && it->second != i) deps.insert(it->second);
    }
    pending[i] = static_cast<int>(deps.size());
    for (int d : deps) users[d].push_back(i);
  }
  std::set<int> ready;
  for (int i : live) {
    if (pending[i] == 0) ready.insert(i);
  }
  onnx::GraphProto* g = model->mutable_graph();
  g->clear_node();
  std::set<std::string> used;
  while (!ready.empty()) {
    const int i = *ready.begin();
    ready.erase(ready.begin());
    const onnx::NodeProto& n = nodes_[static_cast<size_t>(i)];
    *g->add_node() = n;
    for (const auto& in : n.input()) used.insert(in);
    for (int u : users[i]) {
      if (--pending[u] == 0) ready.insert(u);
    }
  }
  PTQ_ENFORCE(g->node_size() == static_cast<int>(live.size()), "rewrite produced a cycle in the graph");
  for (const auto& o : outputs_) used.insert(o);
  g->clear_initializer();
  for (const auto& kv : initializers_) {
    if (used.count(kv.first)) Emit(kv.first, g->add_initializer());
  }
  // Graph inputs that were initializers (IR < 4 style) and are gone must leave the input list too.
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (const auto& v : g->input()) {
    if (inputs_.count(v.name()) || (initializers_.count(v.name()) && used.count(v.name()))) *inputs.Add() = v;
  }
  g->mutable_input()->Swap(&inputs);
  g->clear_value_info();
}

int64_t GetIntAttr(const onnx::NodeProto& node, const std::string& name, int64_t def) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return a.i();
  }
  return def;
}

float GetFloatAttr(const onnx::NodeProto& node, const std::string& name, float def) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return a.f();
  }
  return def;
}

void SetIntAttr(onnx::NodeProto* node, const std::string& name, int64_t value) {
  for (auto& a : *node->mutable_attribute()) {
    if (a.name() == name) {
      a.set_i(value);
      return;
    }
  }
  auto* a = node->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

}  // namespace ptq
