// Builds the interpreter's Graph from an onnx::ModelProto, folding Constant nodes and converting subgraphs.
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "runtime/graph.h"
#include "runtime/model_io.h"
#include "runtime/tensor_proto.h"

namespace ptq {

namespace {

// What is left of the model's memory budget (MaxModelBytes()) once the graph structure is counted: the
// Graph holds about what the parsed protobuf does. TensorFromProto charges each constant before
// allocating it.
int64_t StartBudget(const onnx::ModelProto& model, const std::string& source) {
  const auto structure = static_cast<int64_t>(model.SpaceUsedLong());
  if (structure > MaxModelBytes()) {
    ThrowInputError(source, ": the graph structure needs about ", structure, " bytes, more than the memory limit of ",
                    MaxModelBytes(), " bytes");
  }
  return MaxModelBytes() - structure;
}

// Domain ("" for ai.onnx) -> version of the model's opset imports.
std::map<std::string, int> ModelOpsets(const onnx::ModelProto& model) {
  std::map<std::string, int> opsets;
  for (const auto& op : model.opset_import()) {
    const std::string d = op.domain() == "ai.onnx" ? std::string() : op.domain();
    opsets[d] = static_cast<int>(op.version());
  }
  if (model.opset_import_size() == 0) opsets[""] = 1;  // IR version 1-2 models have no opset_import
  return opsets;
}

// Every attribute type but GRAPH (GRAPHS is kept as kOther: no op ptq runs has one).
AttributeValue ConvertPlainAttribute(const onnx::AttributeProto& a, const std::string& model_dir,
                                     const std::string& what, int64_t* budget) {
  AttributeValue v;
  using K = AttributeValue::Kind;
  switch (a.type()) {
    case onnx::AttributeProto::INT: v.kind = K::kInt; v.i = a.i(); break;
    case onnx::AttributeProto::FLOAT: v.kind = K::kFloat; v.f = a.f(); break;
    case onnx::AttributeProto::STRING: v.kind = K::kString; v.s = a.s(); break;
    case onnx::AttributeProto::INTS: v.kind = K::kInts; v.ints.assign(a.ints().begin(), a.ints().end()); break;
    case onnx::AttributeProto::FLOATS: v.kind = K::kFloats; v.floats.assign(a.floats().begin(), a.floats().end()); break;
    case onnx::AttributeProto::STRINGS: v.kind = K::kStrings; v.strings.assign(a.strings().begin(), a.strings().end()); break;
    case onnx::AttributeProto::TENSOR:
      v.kind = K::kTensor;
      v.tensor = std::make_shared<Tensor>(TensorFromProto(a.t(), model_dir, what + " attribute '" + a.name() + "'", budget));
      break;
    default: v.kind = K::kOther; break;
  }
  return v;
}

ValueInfo ConvertValueInfo(const onnx::ValueInfoProto& vi) {
  ValueInfo info;
  info.name = vi.name();
  info.is_tensor = vi.type().has_tensor_type() || vi.type().value_case() == onnx::TypeProto::VALUE_NOT_SET;
  if (vi.type().has_tensor_type()) {
    const auto& tt = vi.type().tensor_type();
    info.dtype = static_cast<DataType>(tt.elem_type());
    if (tt.has_shape()) {
      info.has_shape = true;
      for (const auto& d : tt.shape().dim()) {
        Dim dim;
        if (d.has_dim_value()) dim.value = d.dim_value();
        if (d.has_dim_param()) dim.param = d.dim_param();
        info.shape.push_back(dim);
      }
    }
  }
  return info;
}

// The value of a Constant node, from whichever of its attributes is set.
Tensor ConstantValue(const Node& node, const std::string& what) {
  const Attributes& a = node.attrs;
  if (const Tensor* t = a.GetTensor("value")) return *t;
  if (a.Has("value_float")) return Tensor::Scalar<float>(a.GetFloat("value_float", 0));
  if (a.Has("value_floats")) {
    const auto v = a.GetFloats("value_floats");
    return Tensor::FromVector<float>({static_cast<int64_t>(v.size())}, v);
  }
  if (a.Has("value_int")) return Tensor::Scalar<int64_t>(a.GetInt("value_int", 0));
  if (a.Has("value_ints")) {
    const auto v = a.GetInts("value_ints");
    return Tensor::FromVector<int64_t>({static_cast<int64_t>(v.size())}, v);
  }
  ThrowInputError(what, ": Constant node has no supported value attribute (string and sparse constants are not supported)");
}

// Converts a GraphProto and, recursively, the subgraphs in its nodes' attributes.
class GraphLoader {
 public:
  GraphLoader(const std::string& model_dir, std::map<std::string, int> opsets, int64_t* budget)
      : model_dir_(model_dir), opsets_(std::move(opsets)), budget_(budget) {}

  // `source` is stored in the Graph; `where` starts every load error (the file, and for a subgraph
  // the node and attribute that hold it).
  // `owned`, when given, is `gp` itself, whose initializers' data may be released once decoded.
  Graph Convert(const onnx::GraphProto& gp, const std::string& source, const std::string& where, bool is_subgraph,
                onnx::GraphProto* owned = nullptr) {
    Graph g;
    g.source = source;
    g.opsets = opsets_;
    std::set<std::string> produced;
    for (int i = 0; i < gp.initializer_size(); ++i) {
      const onnx::TensorProto& init = gp.initializer(i);
      const std::string what = where + ": initializer '" + init.name() + "'";
      if (!produced.insert(init.name()).second) ThrowInputError(what, " is defined twice");
      g.constants[init.name()] = TensorFromProto(init, model_dir_, what, budget_, ExternalRead::kMap);
      if (owned) ReleaseTensorData(owned->mutable_initializer(i));
    }
    if (gp.sparse_initializer_size() > 0) ThrowInputError(where, ": sparse initializers are not supported");
    for (const auto& in : gp.input()) {
      if (g.constants.count(in.name())) continue;  // an initializer listed as input (IR < 4 style)
      if (!produced.insert(in.name()).second) {
        ThrowInputError(where, ": graph input '", in.name(), "' is defined twice");
      }
      g.inputs.push_back(ConvertValueInfo(in));
    }
    for (const auto& out : gp.output()) g.outputs.push_back(ConvertValueInfo(out));
    int index = 0;
    for (const auto& np : gp.node()) {
      Node n;
      n.name = np.name().empty() ? np.op_type() + "_" + std::to_string(index) : np.name();
      ++index;
      n.op_type = np.op_type();
      n.domain = np.domain() == "ai.onnx" ? std::string() : np.domain();
      n.inputs.assign(np.input().begin(), np.input().end());
      n.outputs.assign(np.output().begin(), np.output().end());
      const std::string what = where + ": node '" + n.name + "' (" + n.op_type + ")";
      for (const auto& a : np.attribute()) n.attrs.Set(a.name(), ConvertAttribute(a, what, &n.implicit_inputs));
      for (const std::string& o : n.outputs) {
        if (!o.empty() && !produced.insert(o).second) ThrowInputError(what, ": tensor '", o, "' is produced twice");
      }
      if (n.op_type == "Constant" && n.domain.empty()) {
        if (n.outputs.size() != 1) ThrowInputError(what, ": Constant must have one output");
        g.constants[n.outputs[0]] = ConstantValue(n, what);
        continue;
      }
      g.nodes.push_back(std::move(n));
    }
    if (is_subgraph) g.captures = FreeNames(g, produced);
    return g;
  }

 private:
  // An attribute's value; a subgraph's captures are appended to `implicit_inputs` (no duplicates).
  AttributeValue ConvertAttribute(const onnx::AttributeProto& a, const std::string& what,
                                  std::vector<std::string>* implicit_inputs) {
    if (a.type() != onnx::AttributeProto::GRAPH) return ConvertPlainAttribute(a, model_dir_, what, budget_);
    AttributeValue v;
    v.kind = AttributeValue::Kind::kGraph;
    const std::string where = what + " attribute '" + a.name() + "'";
    auto sub = std::make_shared<Graph>(Convert(a.g(), "subgraph '" + a.name() + "'", where, true));
    for (const std::string& c : sub->captures) {
      if (std::find(implicit_inputs->begin(), implicit_inputs->end(), c) == implicit_inputs->end()) {
        implicit_inputs->push_back(c);
      }
    }
    v.graph = std::move(sub);
    return v;
  }

  // Names a subgraph reads (node inputs, its nodes' implicit inputs, its outputs) that it does not
  // define (`defined`: its inputs, initializers and node outputs), in first-use order.
  static std::vector<std::string> FreeNames(const Graph& g, const std::set<std::string>& defined) {
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto use = [&](const std::string& name) {
      if (!name.empty() && !defined.count(name) && seen.insert(name).second) out.push_back(name);
    };
    for (const Node& n : g.nodes) {
      for (const std::string& in : n.inputs) use(in);
      for (const std::string& in : n.implicit_inputs) use(in);
    }
    for (const ValueInfo& o : g.outputs) use(o.name);
    return out;
  }

  const std::string& model_dir_;
  const std::map<std::string, int> opsets_;
  int64_t* budget_;
};

}  // namespace

int Graph::OpsetFor(const std::string& domain) const {
  const std::string d = domain == "ai.onnx" ? std::string() : domain;
  auto it = opsets.find(d);
  if (it == opsets.end()) ThrowInputError(source, ": the model does not import an opset for domain '", d, "'");
  return it->second;
}

Graph GraphFromModel(const onnx::ModelProto& model, const std::string& model_dir, const std::string& source) {
  int64_t budget = StartBudget(model, source);
  GraphLoader loader(model_dir, ModelOpsets(model), &budget);
  return loader.Convert(model.graph(), source, source, false);
}

Graph GraphFromModel(onnx::ModelProto&& model, const std::string& model_dir, const std::string& source) {
  int64_t budget = StartBudget(model, source);
  GraphLoader loader(model_dir, ModelOpsets(model), &budget);
  return loader.Convert(model.graph(), source, source, false, model.mutable_graph());
}

Graph LoadGraph(const std::string& path) {
  onnx::ModelProto model;
  LoadModelProto(path, &model);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return GraphFromModel(std::move(model), dir.empty() ? "." : dir, path);
}

}  // namespace ptq
