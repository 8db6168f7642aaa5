// The float model calibration, the rewrite and validation all see: the model after the clean-up of
// exports and, as the config and the calibration table say, equalized (quantization.
// cross_layer_equalization) and smoothed (the table's SmoothQuant factors).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "cli/float_model.h"
#include "runtime/graph.h"
#include "runtime/quant_table.h"

namespace ptq {

struct PreparedModel {
  onnx::ModelProto model;
  std::string dir;              // the model's folder (external data)
  int equalized_pairs = 0;      // EqualizeConvPairs
};

// The model cleaned (CleanUpModel), equalized when `equalize` (EqualizeConvPairs) and smoothed with
// `smoothing` (ApplySmoothing; empty: not smoothed) — what RewriteModel does to its input before
// planning when the table says so (QuantTable::equalized, ::smoothing), so that the table's tensors
// are this model's.
PreparedModel PrepareFloatModel(const FloatModel& model, bool equalize, const SmoothingFactorMap& smoothing);

// The same as a runnable graph (its weights mapped where they are external data, never held twice).
Graph LoadPreparedGraph(const FloatModel& model, bool equalize, const SmoothingFactorMap& smoothing);

}  // namespace ptq
