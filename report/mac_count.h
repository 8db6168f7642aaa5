// Multiply-accumulates of a model's MatMul/Gemm/Conv work, and the share of it done on integers: from
// ONNX shape inference, with dynamic input dims assumed 1 (and said so).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "report/static_shapes.h"

namespace ptq {

struct MacCount {
  int64_t total = 0;    // every MatMul/Gemm/Conv-like node whose shapes are known
  int64_t integer = 0;  // of which integer work
  // MACs by kind: the op type ("domain:op" outside ai.onnx), "<op> (QDQ)" for MatMul/Gemm/Conv whose
  // data and weight inputs are both DequantizeLinear outputs.
  std::map<std::string, int64_t> by_op;
  std::vector<AssumedDim> assumed;
  std::vector<std::string> no_shape_inputs;  // graph inputs with no declared shape
  // MatMul/Gemm/Conv-like nodes left out of both totals: "name (op): why" (an input shape unknown).
  std::vector<std::string> unknown;
  int subgraph_nodes = 0;  // MatMul/Gemm/Conv-like nodes inside If/Loop/Scan bodies (not counted)
  // integer / total; < 0 when total is 0.
  double integer_share() const { return total > 0 ? static_cast<double>(integer) / static_cast<double>(total) : -1; }
};

// Counts the main graph's MatMul/Gemm/Conv work per run (nodes that compute on constants alone are
// computed once, not per run, and are left out). A MAC is one multiply-add of the op's
// definition: MatMul [..., M, K] x [..., K, N] -> batch * M * K * N; Gemm M * K * N; Conv
// N * M * prod(output spatial) * (C / group) * prod(kernel), the output size from the input, kernel,
// strides, dilations, pads and auto_pad. Integer work: QLinearMatMul, MatMulInteger, QLinearConv,
// ConvInteger, and com.microsoft's MatMulIntegerToFloat, DynamicQuantizeMatMul, QGemm, QLinearConv;
// and MatMul/Gemm/Conv in QDQ form (both inputs from DequantizeLinear). Float work: the other
// MatMul/Gemm/Conv. Shapes from InferStaticShapes (dynamic input dims taken as 1, listed in `assumed`).
// Never throws on a shape it cannot find: such nodes are listed in `unknown`.
MacCount CountMacs(const onnx::ModelProto& model, const std::string& model_dir);

}  // namespace ptq
