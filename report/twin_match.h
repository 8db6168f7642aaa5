// Matching the 8-bit tensors of a quantized model to the float model's tensors they stand for, from the
// two graphs alone (for models ptq did not just make, so without the rewrite's RewriteInfo::twins).
#pragma once

#include <map>
#include <string>

#include "runtime/graph.h"

namespace ptq {

// Candidate twins: each tensor a node of `int8_model` writes, mapped to a tensor of `float_model` (one a
// node writes, or a graph input) by the first rule that finds one:
//  1. it is the output of a QuantizeLinear whose input is a float model tensor (QDQ models of any tool:
//     ONNX Runtime's `x_QuantizeLinear_Output`, ptq's `x/quantized`);
//  2. its name is a float model tensor's plus a quantizer's suffix: "/quantized" or "/quantized_<k>"
//     (ptq's rewrite, QOperator and QDQ), "_quantized" (ONNX Runtime's QOperator form),
//     "_QuantizeLinear_Output" (its QDQ form);
//  3. its name is a float model tensor's (a tool that kept the name).
// Tensors the float model also has under the same name are only candidates by rule 3 when no rule
// before applies. Candidates need not be 8-bit: Validate keeps those whose scale and zero point it can
// read from their producer (QuantizeLinear, QLinearMatMul, QLinearConv, ops that move values) and
// skips the rest, so a float tensor matched to itself never becomes a layer row.
std::map<std::string, std::string> MatchTwins(const Graph& float_model, const Graph& int8_model);

}  // namespace ptq
