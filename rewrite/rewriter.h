// The rewrite stage: float model + calibration table + config -> the quantized ONNX model.
#pragma once

#include <onnx/onnx_pb.h>

#include <map>
#include <string>
#include <vector>

#include "rewrite/quant_table.h"
#include "rewrite/rewrite_config.h"

namespace ptq {

struct RewriteInfo {
  std::vector<std::string> skipped;        // planned ops left float, with the reason
  std::map<std::string, int> op_counts;    // op type -> count in the emitted model
  std::string checked;                     // what the validation checked
};

// Rewrites `model` (loaded from a file in `model_dir`). Refuses (input error) a model that already
// has quantized ops, and a table none of whose tensors is in the model. Models below opset 13 are
// converted with ONNX's version converter first. `metadata` is added to metadata_props. The result
// passes ValidateModel. Deterministic: same inputs, same bytes.
onnx::ModelProto RewriteModel(const onnx::ModelProto& model, const std::string& model_dir, const QuantTable& table,
                              const RewriteConfig& config, const std::map<std::string, std::string>& metadata,
                              RewriteInfo* info);

// onnx::checker::check_model plus strict shape and type inference (error on any node). Throws an
// internal error naming the problem. Returns a sentence saying what was checked.
std::string ValidateModel(const onnx::ModelProto& model);

}  // namespace ptq
