// Cross-layer equalization of the float model: Conv -> [Relu] -> Conv pairs rescaled channel by channel
// so that both convolutions' weight ranges match, without changing what the model computes.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace ptq {

// For each pair Conv1 -> Conv2 or Conv1 -> Relu -> Conv2 (Conv1's output, and the Relu's, read by
// nothing else and no graph output; both weights float constants used by their Conv alone, Conv1's
// bias too): with r1[c] = max |W1[c, ...]| (Conv1's output channel c) and r2[c] = max |W2[., c, ...]|
// (Conv2's input channel c, over the output channels of its group),
//   s[c] = sqrt(r1[c] / r2[c]),  W1[c] /= s[c],  b1[c] /= s[c],  W2[., c] *= s[c]
// so that both ranges become sqrt(r1 r2); Relu(x / s) = Relu(x) / s for s > 0, so the model computes
// the same up to float rounding. Not across Clip (one bound for all channels) or other activations.
// Sweeps over the pairs until no scale moves by more than 1e-4 (at most 16 sweeps: a Conv can be the
// second of one pair and the first of the next). s is held to [1e-4, 1e4]; a channel with r1 or r2 zero
// keeps s = 1. The weights must be initializers in the model (after CleanUpModel; external data read
// against model_dir). Returns the number of pairs equalized.
int EqualizeConvPairs(onnx::ModelProto* model, const std::string& model_dir);

}  // namespace ptq
