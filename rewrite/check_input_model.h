// Refuses float models the rewrite cannot take safely, before it reads them node by node.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "runtime/quant_table.h"

namespace ptq {

// Throws an input error when `model` (its external data in `model_dir`) fails onnx::checker's model
// checks (e.g. a node with fewer inputs than its schema requires) or when a Conv, ConvTranspose or
// pooling node has a data input whose known rank (declared in the model or observed by calibration, in
// `table`) differs from its weight's rank or its kernel_shape, or is below 3.
void CheckInputModel(const onnx::ModelProto& model, const std::string& model_dir, const QuantTable& table);

}  // namespace ptq
