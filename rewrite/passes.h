// The rewrite passes, each a match plus an action in its own file, and the list that runs them.
// Every pass returns whether it changed the graph and is idempotent (a second run changes nothing).
#pragma once

#include <optional>

#include "rewrite/quant_plan.h"
#include "rewrite/rewrite_graph.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

// Gemm with constant B, alpha = beta = 1, transA = 0 -> MatMul(A, B as [K, N]) + Add(C), unless Gemm
// is not in op_types or the node is excluded (gemm_to_matmul.cc). Transposed weights get a table
// entry under their new name (its axis transposed with it; quant_plan.cc checks it against the
// axis the MatMul needs).
bool CanonicalizeGemm(RewriteGraph* g, const QuantizationOptions& config, QuantTable* table);

// QDQ form of the plan (insert_qdq.cc): QuantizeLinear -> DequantizeLinear on every planned activation
// (its integer readers and the plan's pass-through nodes read the DequantizeLinear; float readers
// keep the float tensor), weights as int8 initializers + DequantizeLinear, biases
// as int32 + DequantizeLinear with scale input_scale * weight_scale; a Relu or Clip made exact by its output's
// zero point is removed (the QuantizeLinear clamps as it would).
bool InsertQdq(RewriteGraph* g, const QuantPlan& plan);

// QOperator fusions over the QDQ form:
// DQ(a), DQ(b) -> MatMul [-> Add(DQ(int32 bias))] [-> Q] becomes QLinearMatMul (no bias, output
// quantized) or MatMulInteger [+ Add int32] + DequantizeLinear [-> the Q stays] (fuse_matmul.cc).
bool FuseQuantizedMatMul(RewriteGraph* g);
// DQ(x), DQ(w) [, DQ(int32 b)] -> Conv -> Q becomes QLinearConv (fuse_conv.cc).
bool FuseQuantizedConv(RewriteGraph* g);
// DQ(x) -> data-movement op (Reshape, Transpose, MaxPool, Flatten, ...): the op runs on the int8 x and
// writes the output of a following Q with the same parameters, or else the DQ moves below the op when
// the op is its only reader (and so on down a chain); DQ(constant int8 table) -> Gather: Gather on
// int8, then DQ (sink_dequantize.cc).
bool SinkDequantize(RewriteGraph* g);
// Q(DQ(x)) with the same scale, zero point and type is x (cancel_qdq.cc).
bool CancelQdqPairs(RewriteGraph* g);
// Shape(DQ(x)) and Size(DQ(x)) read x: a DQ kept only for shapes becomes dead
// (shape_before_dequantize.cc).
bool ReadShapeBeforeDequantize(RewriteGraph* g);
// Nodes none of whose outputs is used (or a graph output) are removed (remove_dead_nodes.cc).
bool RemoveDeadNodes(RewriteGraph* g);

// Runs the passes of `format` in order until none changes anything (pass_list.cc).
void RunRewritePasses(RewriteGraph* g, const QuantPlan& plan, QuantFormat format);

}  // namespace ptq
