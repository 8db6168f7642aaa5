// The clean-up of exported graphs that calibration and the rewrite both start from: constants the
// exporter left as nodes become initializers, so that a weight reached through Identity, Transpose or
// Cast is still a weight, and shape arithmetic with known inputs is computed once.
#pragma once

#include <string>

#include "runtime/graph.h"

namespace ptq {

struct CleanupReport {
  int constants = 0;   // Constant nodes made initializers
  int identities = 0;  // Identity nodes over a constant removed (their readers read the constant)
  int folded = 0;      // nodes whose inputs were all constant, evaluated into initializers
  int shapes = 0;      // Shape (and Gather of a Shape) of statically shaped tensors folded
};

// Cleans `model` in place (the caller's copy; the file is never touched). Semantics are kept: folded
// nodes are evaluated with ptq's own kernels, exactly as the session would. Not folded: nodes writing
// a graph output, random and control-flow ops, QuantizeLinear/DequantizeLinear, ops of other domains,
// and nodes whose outputs would hold more than max(their inputs' elements, 65536) elements (an Expand
// or ConstantOfShape stays a node rather than a large initializer). Names read inside subgraphs keep
// their producers. `model_dir` resolves external data of the constants read.
CleanupReport CleanUpModel(onnx::ModelProto* model, const std::string& model_dir);

}  // namespace ptq
