// Fused execution of float convolutions with their activation: Conv -> Relu / Clip becomes one
// ptq.fused FusedConv that clamps each output as it is stored (no second pass over the tensor).
#pragma once

#include "runtime/graph.h"

namespace ptq {

// The attributes FusedConv carries beside Conv's: the clamp bounds (Relu: 0 and +infinity).
constexpr const char* kActivationMin = "activation_min";
constexpr const char* kActivationMax = "activation_max";

// Returns `graph` with each Conv (ai.onnx) whose output only a Relu or a Clip with constant float32
// bounds reads, and which is no graph output, replaced by FusedConv writing the activation's output;
// the activation node is removed. Subgraphs are left as they are. *count (when given) is the number of
// pairs fused. The Conv's own output is no longer computed as a separate tensor.
Graph FuseConvActivations(const Graph& graph, int* count = nullptr);

}  // namespace ptq
