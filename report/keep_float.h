// Which nodes to keep in float so that a quantized tensor's loss disappears (the recovery experiment,
// the automatic fallback): the node that computes its quantized form and the nodes that read it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/graph.h"

namespace ptq {

// The nodes to keep float so that `tensor` is not quantized at all (the recovery experiment's and the
// automatic fallback's unit): the node that computes its quantized form (`quantized_by`, the rewrite's
// RewriteInfo::quantized_by), then the float model's MatMul/Gemm/Conv nodes that read it, in model
// order. Keeping only the producer float would leave the tensor quantized for its integer readers.
std::vector<std::string> NodesToUnquantize(const Graph& float_model, const std::map<std::string, std::string>& quantized_by,
                                           const std::string& tensor);

}  // namespace ptq
