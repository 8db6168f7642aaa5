// The rewrite stage: float model + calibration table + config -> the quantized ONNX model.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "runtime/external_data_writer.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

struct TensorReaders {
  std::vector<std::string> int8, float_values, dequantized;
};

struct RewriteInfo {
  std::vector<std::string> skipped;        // planned ops left float, with the reason
  std::vector<std::string> warnings;       // parameters the rewrite had to change (e.g. for int32 biases)
  std::map<std::string, int> op_counts;    // op type -> count in the emitted model
  std::string checked;                     // what the validation checked
  // The emitted model's 8-bit tensors and the float tensor each stands for (its twin in the float model).
  std::map<std::string, std::string> twins;
  // Float tensors whose quantized form a node computes -> that node (the float model's name); keeping
  // the node float keeps the tensor's producer float.
  std::map<std::string, std::string> quantized_by;
  // Who reads each tensor an integer node reads, by the float model's node names: the 8-bit tensor,
  // the float original, or (QOperator, when the producer writes only 8 bits) its dequantized values.
  std::map<std::string, TensorReaders> readers;
  // quantization.bias_correction: nodes whose bias was corrected; those that could not be, with why.
  std::vector<std::string> bias_corrected, bias_not_corrected;
  int equalized_pairs = 0;                       // the table's cross_layer_equalization
  std::map<std::string, std::string> smoothed;   // the table's smoothing: activation -> what its MatMuls read
};

// Rewrites `model` (loaded from a file in `model_dir`, whose external data is read from there). Refuses
// (input error) a model that already has quantized ops, and a table none of whose tensors is in the
// model. Models below opset 13 are converted with ONNX's version converter first. `metadata` is added
// to metadata_props. The result passes ValidateModel and has every tensor inline. Deterministic: same
// inputs, same bytes.
onnx::ModelProto RewriteModel(const onnx::ModelProto& model, const std::string& model_dir, const QuantTable& table,
                              const QuantizationOptions& config, const std::map<std::string, std::string>& metadata,
                              RewriteInfo* info);

// The same from a model the caller gives up: its weights are moved, never copied. With `data`, every
// tensor of ExternalDataWriter::kMinBytes and more is written to it as the rewrite makes it (int8
// weights as they are quantized) and the result refers to it: the quantized model is never held whole
// in memory. (The result then resolves its external data against data->folder().)
onnx::ModelProto RewriteModel(onnx::ModelProto&& model, const std::string& model_dir, const QuantTable& table,
                              const QuantizationOptions& config, const std::map<std::string, std::string>& metadata,
                              RewriteInfo* info, ExternalDataWriter* data = nullptr);

// onnx::checker's model checks (external data resolved against `model_dir`) plus strict shape and type
// inference (error on any node). Throws an internal error naming the problem. Returns a sentence
// saying what was checked.
std::string ValidateModel(const onnx::ModelProto& model, const std::string& model_dir = ".");

}  // namespace ptq
