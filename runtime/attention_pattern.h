// Finds self-attention blocks in a graph: the Softmax whose output reaches the P·V MatMul, and the
// Q·Kᵀ MatMul that produces the Softmax's input. Shared by calibration and rewrite.
#pragma once

#include <vector>

#include "runtime/graph.h"

namespace ptq {

struct AttentionMatch {
  const Node* softmax = nullptr;
  const Node* pv_matmul = nullptr;  // MatMul(P, V): input 0 reached from the Softmax, input 1 not constant
  const Node* qk_matmul = nullptr;  // MatMul(Q, Kᵀ) feeding the Softmax, or nullptr when not found
};

// A Softmax belongs to attention when its output reaches input 0 of a MatMul whose input 1 is not a
// constant, through shape-only ops (Reshape, Transpose, Squeeze, Unsqueeze, Cast, Identity, Dropout).
// The Q·Kᵀ MatMul is found by walking back from the Softmax's input through the scaling and masking
// ops exporters put there (Div, Mul, Add, Sub, Where, Cast, Reshape, Transpose, Squeeze, Unsqueeze),
// to a MatMul with two non-constant inputs. Neither walk depends on one exporter's order of ops.
std::vector<AttentionMatch> FindAttention(const Graph& graph);

}  // namespace ptq
