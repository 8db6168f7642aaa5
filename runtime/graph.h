// The model as the interpreter sees it: nodes, constants (initializers and folded Constant nodes),
// typed graph inputs and outputs, and opset imports.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/attributes.h"
#include "runtime/tensor.h"

namespace onnx {
class ModelProto;
}

namespace ptq {

// One dimension of a declared shape: a fixed size, or a symbolic / unknown one (value < 0).
struct Dim {
  int64_t value = -1;
  std::string param;  // symbolic name, e.g. "batch"
};

struct ValueInfo {
  std::string name;
  bool is_tensor = true;  // false for sequence, optional and map values (not supported)
  DataType dtype = DataType::kUndefined;
  bool has_shape = false;
  std::vector<Dim> shape;
};

// The declared shape for messages: "[batch, 3, 224, 224]" (symbolic dims by name, unknown ones "?"),
// or "(no declared shape)".
std::string DeclaredShapeString(const ValueInfo& v);

struct Node {
  std::string name;
  std::string op_type;
  std::string domain;  // "" for ai.onnx
  std::vector<std::string> inputs;   // "" marks an omitted optional input
  std::vector<std::string> outputs;  // "" marks an omitted optional output
  Attributes attrs;                  // graph-valued attributes hold the subgraphs (If, Loop)
  // Tensors of enclosing scopes that the node's subgraphs read (the union of their Graph::captures,
  // in first-use order). The session treats them as further inputs of the node: they order it after
  // their producers and stay alive until it has run.
  std::vector<std::string> implicit_inputs;
};

struct Graph {
  std::vector<Node> nodes;                  // in file order (the session sorts them)
  std::vector<ValueInfo> inputs;            // graph inputs that are not initializers
  std::vector<ValueInfo> outputs;
  std::map<std::string, Tensor> constants;  // initializers and the outputs of Constant nodes
  std::map<std::string, int> opsets;        // domain ("" for ai.onnx) -> version
  std::string source;                       // the file (a subgraph: "subgraph 'body'"), for error messages
  // Subgraphs only: the tensors of enclosing scopes it reads by name (read by its nodes, their own
  // subgraphs or named as its outputs, and defined nowhere in it). Empty for a model's main graph.
  std::vector<std::string> captures;

  // The opset version imported for a domain; throws an input error when the model does not import it.
  int OpsetFor(const std::string& domain) const;
};

// Builds the interpreter's graph from a model. `model_dir` resolves external data (empty: refuse
// external data); `source` names the model in errors. Constant nodes are evaluated and removed, in
// subgraphs too; graph attributes become Graphs that share the model's opsets.
// Throws an input error for duplicate tensor producers, malformed attributes or tensors.
Graph GraphFromModel(const onnx::ModelProto& model, const std::string& model_dir, const std::string& source);
// The same from a model the caller gives up: each initializer's data is released as soon as it is decoded,
// so the model's weights are never held twice.
Graph GraphFromModel(onnx::ModelProto&& model, const std::string& model_dir, const std::string& source);

// Loads a .onnx file (with its external data) into a Graph.
Graph LoadGraph(const std::string& path);

}  // namespace ptq
