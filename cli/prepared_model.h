// The float model calibration, the rewrite and validation all see: the model after the clean-up of
// exports and, as the config and the calibration table say, equalized (quantization.
// cross_layer_equalization) and smoothed (the table's SmoothQuant factors).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

#include "runtime/graph.h"
#include "runtime/quant_table.h"
#include "runtime/quantization_options.h"

namespace ptq {

struct PreparedModel {
  onnx::ModelProto model;
  std::string dir;              // the model's folder (external data)
  int equalized_pairs = 0;      // EqualizeConvPairs
};

// `path`'s model cleaned (CleanUpModel), equalized when `options` ask for it (EqualizeConvPairs) and
// smoothed with `smoothing` (ApplySmoothing; empty: not smoothed) — what RewriteModel does to its input
// before planning, so that the table's tensors are this model's.
PreparedModel PrepareFloatModel(const std::string& path, const QuantizationOptions& options,
                                const SmoothingFactorMap& smoothing);

// The same as a runnable graph (LoadCleanGraph when there is nothing to equalize or smooth).
Graph LoadPreparedGraph(const std::string& path, const QuantizationOptions& options, const SmoothingFactorMap& smoothing);

}  // namespace ptq
