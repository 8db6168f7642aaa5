// Which nodes to keep in float so that a quantized tensor's loss disappears (the report's recovery
// experiment): the node that computes the tensor's quantized form, else the quantized readers.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace ptq {

// `quantized_by` maps each tensor whose quantized form a node computes to that node (the rewrite's
// RewriteInfo::quantized_by). A tensor not in it (a graph input, or the output of a float op) is
// quantized for its readers: the float model's MatMul/Gemm/Conv nodes that read it, in model order.
std::vector<std::string> NodesToKeepFloat(const Graph& float_model, const std::map<std::string, std::string>& quantized_by,
                                          const std::string& tensor);

// The nodes to keep float so that `tensor` is not quantized at all (the automatic fallback's unit):
// the node that computes its quantized form (from `quantized_by`), and the float model's MatMul/Gemm/
// Conv nodes that read it, in model order. Keeping only the producer float leaves the tensor
// quantized for its integer readers.
std::vector<std::string> NodesToUnquantize(const Graph& float_model, const std::map<std::string, std::string>& quantized_by,
                                           const std::string& tensor);

}  // namespace ptq
