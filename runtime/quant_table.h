// The calibration table's quantization entries, one definition for both readers: calibration writes
// and merges the table (with histograms, calibrate/calibration_table.h), the rewrite reads its chosen
// dtype, scales and zero points. Format "ptq-calibration-table", version 1 (configs/README.md).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/dtype.h"
#include "runtime/tensor.h"

namespace ptq {

constexpr int kCalibrationTableVersion = 1;

enum class TensorRole { kActivation, kWeight, kSoftmaxOutput };
std::string TensorRoleName(TensorRole role);  // "activation", "weight", "softmax_output"

// How one tensor is quantized.
struct TensorQuant {
  TensorRole role = TensorRole::kActivation;
  DataType dtype = DataType::kUint8;  // int8 or uint8
  std::vector<float> scales;          // one, or one per channel along `axis`
  std::vector<int32_t> zero_points;
  int64_t axis = -1;                  // -1: per tensor
  Shape shape;                        // the largest shape calibration saw (a weight: its shape)
  // An activation's channel means for bias correction (calibrate/channel_means.h): along `mean_axis`,
  // the mean of its float values and of its quantized-then-dequantized values (these parameters).
  // Empty: not measured (bias correction off, a shard's table, or an activation no Conv/MatMul/Gemm reads).
  int64_t mean_axis = -1;
  std::vector<float> float_mean, quantized_mean;
  bool per_tensor() const { return scales.size() == 1; }
};

// The table's provenance: what it was made from.
struct TableProvenance {
  std::string model_digest;   // sha256 of the model file
  std::string config_digest;  // sha256 of the calibration-relevant config (not the shard)
  std::string method;
  double percentile = 99.999;
  std::string shard;          // "K/N" or "" for all samples
};

// The table file's text, at most 1 GiB (an input error names the file otherwise).
std::string ReadTableFile(const std::string& path);
// The table's JSON from its text: size (1 GiB), nesting depth (64) and value count (2^26) checked
// before parsing. Errors are input errors naming `where`.
nlohmann::json ParseTableJson(const std::string& text, const std::string& where);
// Checks 'format' and 'version' and reads the digests (always) and, when `full`, the method,
// percentile and shard that merging needs.
TableProvenance ParseTableHeader(const nlohmann::json& table, const std::string& where, bool full);
// One entry of 'tensors': role, dtype, scale, zero_point, shape and axis, each checked (zero points
// inside the dtype's range, scales positive and finite, one scale per channel along the axis).
TensorQuant ParseTableEntry(const nlohmann::json& entry, const std::string& where);
// The same fields as JSON (the inverse of ParseTableEntry).
nlohmann::json TableEntryJson(const TensorQuant& q);
// A tensor as calibration saw it run: its element type and its largest shape, dimension by dimension.
struct ObservedTensor {
  DataType dtype = DataType::kUndefined;
  Shape shape;
};
// The table's 'observed' (every tensor the calibration run produced, quantized or not); empty when the
// table has none (tables of earlier versions of ptq). Entries are {"dtype": "float32", "shape": [...]}.
std::map<std::string, ObservedTensor> ParseTableObserved(const nlohmann::json& table, const std::string& where);
nlohmann::json ObservedJson(const std::map<std::string, ObservedTensor>& observed);
// The table's 'smoothing' (quantization.smoothquant): activation name -> its per-channel SmoothQuant
// factors (positive, finite), which the float model is smoothed with before its tensors mean what the
// table says (rewrite/smooth_matmul_inputs.h). Empty when the table has none.
using SmoothingFactorMap = std::map<std::string, std::vector<float>>;
SmoothingFactorMap ParseTableSmoothing(const nlohmann::json& table, const std::string& where);
// The table's 'cross_layer_equalization': true when calibration ran on the equalized model
// (rewrite/equalize_conv_pairs.h), whose tensors and weights the table then describes; false when absent.
bool ParseTableEqualized(const nlohmann::json& table, const std::string& where);

// The table as the rewrite reads it.
struct QuantTable {
  std::map<std::string, TensorQuant> tensors;
  std::map<std::string, ObservedTensor> observed;  // every tensor of the calibration run (ParseTableObserved)
  SmoothingFactorMap smoothing;                    // ParseTableSmoothing
  bool equalized = false;                          // ParseTableEqualized
  std::string model_sha256, config_sha256;
  std::string file_sha256;  // of the table file itself (recorded in the model's metadata)
};

QuantTable ReadQuantTable(const std::string& path);
// The same from the table's text; `where` names it in errors.
QuantTable ParseQuantTable(const std::string& text, const std::string& where);

}  // namespace ptq
