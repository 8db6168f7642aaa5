// SmoothQuant on the float model: a per-channel factor moved from a MatMul's activation into its
// constant weight, so that activation outlier channels no longer set the activation's 8-bit scale.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

namespace ptq {

// Activations SmoothQuant can smooth: a tensor X read (as input 0) by MatMuls whose input 1 is a 2-D
// float constant [K, N] read by that MatMul alone, X [..., K]; every such reader of X takes part.
// Maps X to its readers' node names.
std::map<std::string, std::vector<std::string>> SmoothingCandidates(const onnx::ModelProto& model);

// The factors s[k] = max|X[..., k]|^alpha / max|W[k, :]|^(1 - alpha) (W over all of X's candidate
// readers), held to [1e-5, 1e5], 1 for a channel whose activation or weights are all zero. `absmax`
// holds the activations' per-channel maxima of |x| over the calibration data (last axis).
std::map<std::string, std::vector<float>> SmoothingFactors(const onnx::ModelProto& model, const std::string& model_dir,
                                                           const std::map<std::string, std::vector<float>>& absmax,
                                                           double alpha);

// Applies `factors`: each smoothed MatMul reads X / s and holds the weight diag(s) W, so it computes
// the same product up to rounding. X / s is computed by folding 1/s into X's producer when that is an
// affine per-channel step every reader of which is smoothed (LayerNormalization's scale and bias, or
// a Mul by a constant [K] followed by an Add of a constant [K]), else by a new Mul node writing
// "<X>/smoothed" — float readers of X (a post-LN residual Add) keep reading X unchanged.
// Returns the names of the tensors the smoothed MatMuls now read (X, or the new tensor), by X.
// An X that is no SmoothingCandidates key, or factors that do not match its readers' weight rows, are
// an input error (the table was made for another model).
std::map<std::string, std::string> ApplySmoothing(onnx::ModelProto* model, const std::string& model_dir,
                                                  const std::map<std::string, std::vector<float>>& factors);

}  // namespace ptq
