// Which nodes get quantized and with which parameters: the rule table per op type, attention, the
// config's exclusions and overrides, parameters shared through data-movement ops, weight parameters
// per consumer, and int32 biases that fit.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "rewrite/rewrite_graph.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

enum class InputRole { kFloat, kActivation, kWeight, kBias };

struct NodeQuant {
  std::vector<InputRole> inputs;  // per input of the node
  TensorQuant weight;             // the kWeight input's parameters for this node (its channel axis)
  bool quantize_output = false;   // `output` gets QuantizeLinear (else it stays float)
  std::string output;             // the node's output, or the bias Add's output (see bias_add)
  int bias_add = -1;              // MatMul with a constant weight followed by Add(y, bias[N]): that Add
  int fused_clamp = -1;           // a Relu or Clip after the node (or its bias Add) that quantizing its
                                  // output does exactly (FindExactClamp): removed, `output` is its output
  std::string why;                // "matmul", "attention scores", "attention context", "conv", "embedding"
  // quantization.bias_correction: subtracted from the bias (per output channel) before it is quantized
  // (BiasShift, bias_correction.h); a Conv without a bias gets one. Empty: no correction.
  std::vector<float> bias_shift;
};

struct QuantPlan {
  std::map<int, NodeQuant> nodes;               // by RewriteGraph node slot
  std::map<std::string, TensorQuant> params;    // activations (and the table's weights) to quantize
  std::vector<std::string> skipped;             // "node 'X' (MatMul): why it stays float"
  std::vector<std::string> warnings;            // e.g. weight scales raised so that an int32 bias fits
  // quantization.bias_correction: the nodes whose bias was corrected, and those that could not be,
  // with the reason ("node 'X' (MatMul): why").
  std::vector<std::string> bias_corrected, bias_not_corrected;
  std::map<std::string, std::string> output_of; // quantized output tensor -> the node that writes it
  // Data-movement nodes that read their input's quantized form: their output's readers are all
  // integer nodes (or more such nodes), so the 8-bit tensor flows from one integer op to the next.
  std::set<int> int8_passthrough;
  // Every tensor an integer node reads -> its readers by node name, split by the form they read: the
  // 8-bit tensor (integer nodes and int8 pass-through) or float values ("(model output)" for a graph
  // output). Which float values (the original or the dequantized 8-bit ones) the emitted model decides.
  std::map<std::string, std::vector<std::string>> int8_readers, float_readers;
};

// Builds the plan. `graph` is the model after the Gemm canonicalisation; `table` the calibration
// table. Edges, not tensors, are quantized: an integer node reads a tensor's quantized form, a float
// node keeps reading its float values (a post-LN residual Add keeps the float LayerNorm output), and a
// Relu folds into its producer only when no float node reads its output. Activation parameters must be per tensor; a node lacking parameters for an input stays float
// (listed in `skipped`). A weight whose table entry is per channel along another axis than this node
// needs (a weight shared by differently oriented consumers) gets parameters for this node from its
// values. A bias whose int32 value round(b / (x_scale * w_scale)) would exceed kMaxQuantizedBias
// raises that channel's weight scale until it fits (WeightScaleForBias), with a warning.
QuantPlan MakeQuantPlan(const RewriteGraph& graph, const onnx::ModelProto& model, const QuantTable& table,
                        const QuantizationOptions& options);

}  // namespace ptq
