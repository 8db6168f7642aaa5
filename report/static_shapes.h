// Static shapes of a model's tensors with its dynamic input dims fixed (to 1), for counting work: ptq's
// clean-up folds the shape arithmetic, then ONNX's shape inference runs. Not for running the model.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ptq {

// One dynamic dim of a graph input that had to be fixed.
struct AssumedDim {
  std::string input;
  int dim = 0;
  std::string param;  // the symbolic name; "" for an unnamed dim
  int64_t value = 1;
};

struct StaticShapes {
  // Tensor -> dims (-1: unknown) of every tensor whose rank is known: initializers, graph inputs and
  // outputs, and what inference found.
  std::map<std::string, std::vector<int64_t>> shapes;
  std::vector<AssumedDim> assumed;           // graph input dims that are not fixed numbers, set to 1
  std::vector<std::string> no_shape_inputs;  // graph inputs that declare no shape
  // The copy the shapes are of: the model's nodes less those the clean-up computed (nodes over
  // constants alone), initializers of more than 64 elements (or external) turned into graph inputs of
  // their type and shape (no weight data is copied).
  onnx::ModelProto model;
};

// Fixes every graph input dim that is not a number to 1, then repeats ptq's clean-up (CleanUpModel:
// Shape of statically shaped tensors and what computes from it) while it folds more, then runs ONNX
// shape inference with data propagation (on a failure: without the declared output and value_info
// shapes; then without data propagation). `model_dir` resolves external data of small constants the
// clean-up reads. Never throws for shapes it cannot find (they are absent from `shapes`); a clean-up
// round that throws is undone and ends the clean-up.
StaticShapes InferStaticShapes(const onnx::ModelProto& model, const std::string& model_dir);

}  // namespace ptq
