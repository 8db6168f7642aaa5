// Test helpers for the sample readers: a graph that is only its declared inputs.
#pragma once

#include <string>
#include <vector>

#include "runtime/graph.h"

namespace ptq::testing {

// dims < 0 are symbolic, named "N" for axis 0 and "S<axis>" otherwise.
inline ValueInfo In(const std::string& name, DataType dtype, const std::vector<int64_t>& dims) {
  ValueInfo v;
  v.name = name;
  v.dtype = dtype;
  v.has_shape = true;
  for (size_t i = 0; i < dims.size(); ++i) v.shape.push_back(Dim{dims[i], dims[i] >= 0 ? "" : (i == 0 ? "N" : "S" + std::to_string(i))});
  return v;
}

// A graph with these inputs and nothing else, from "model.onnx".
inline Graph Model(std::vector<ValueInfo> inputs) {
  Graph g;
  g.inputs = std::move(inputs);
  g.source = "model.onnx";
  return g;
}

}  // namespace ptq::testing
