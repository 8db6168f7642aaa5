// Which nodes get quantized and with which parameters: the rule table per op type, attention, the
// config's exclusions and overrides, and parameters shared through data-movement ops.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rewrite/quant_table.h"
#include "rewrite/rewrite_config.h"
#include "rewrite/rewrite_graph.h"

namespace ptq {

enum class InputRole { kFloat, kActivation, kWeight, kBias };

struct NodeQuant {
  std::vector<InputRole> inputs;  // per input of the node
  bool quantize_output = false;   // `output` gets QuantizeLinear (else it stays float)
  std::string output;             // the node's output, or the bias Add's output (see bias_add)
  int bias_add = -1;              // MatMul with a constant weight followed by Add(y, bias[N]): that Add
  int fused_relu = -1;            // a Relu after the node (or its bias Add) made exact by the output's
                                  // zero point being the type's minimum: removed, `output` is its output
  std::string why;                // "matmul", "attention scores", "attention context", "conv"
};

struct QuantPlan {
  std::map<int, NodeQuant> nodes;               // by RewriteGraph node index
  std::map<std::string, TensorQuant> params;    // activations and weights to quantize
  std::vector<std::string> skipped;             // "node 'X' (MatMul): why it stays float"
};

// The op types whose outputs carry the input's values unchanged (or a subset of them): an int8
// tensor passes through with the same scale and zero point.
bool IsDataMovementOp(const std::string& op_type);

// Builds the plan. `graph` is the model after the Gemm canonicalisation; `table` the calibration
// table (its weight entries already match the graph's weights). Activation parameters must be per
// tensor; a node lacking parameters for an input stays float (listed in `skipped`).
QuantPlan MakeQuantPlan(const RewriteGraph& graph, const onnx::ModelProto& model, const QuantTable& table,
                        const RewriteConfig& config);

}  // namespace ptq
