// The config's `quantization` section, parsed once into a plain struct that calibration and the
// rewrite both read (shared/config.md lists the keys): types, op types, exclusions, overrides.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/dtype.h"
#include "runtime/quant_math.h"

namespace ptq {

enum class QuantFormat { kQOperator, kQdq };

// A per-tensor override: a fixed range (min/max) or a fixed scale and zero point, and the dtype.
struct TensorOverride {
  DataType dtype = DataType::kUndefined;  // kUndefined: keep the table's
  bool has_range = false;
  float min = 0, max = 0;
  bool has_scale = false;
  float scale = 1;
  int32_t zero_point = 0;
};

struct QuantizationOptions {
  QuantFormat format = QuantFormat::kQOperator;
  DataType activation_dtype = DataType::kUint8;
  bool activation_symmetric = false;
  bool reduce_range = false;               // 7-bit activations (QuantRangeOf)
  DataType weight_dtype = DataType::kInt8;
  bool weight_symmetric = true;
  bool per_channel = true;
  std::vector<std::string> op_types = {"MatMul", "Gemm", "Conv"};
  bool attention = true;
  std::vector<std::string> exclude_nodes;  // names, or /regex/
  std::map<std::string, TensorOverride> overrides;
  int64_t opset = 0;                       // 0: the model's, raised to 13
  // `fallback: "auto"`: ptq quantize keeps the fewest nodes float that make validation.gate pass,
  // measuring at most `fallback_budget` candidate models (validation runs).
  bool fallback_auto = false;
  int64_t fallback_budget = 12;
  // Methods beyond plain min/max-style calibration (README "Methods beyond the baseline"):
  // bias correction folds each output channel's expected quantization shift (measured on the
  // calibration data, calibrate/channel_means.h) into the bias of Conv, MatMul and Gemm (the default:
  // README "Methods beyond the baseline" has the measurements);
  bool bias_correction = true;
  // cross-layer equalization rescales Conv -> [Relu] -> Conv pairs so that each channel's weight ranges
  // match (rewrite/equalize_conv_pairs.cc; exact in float);
  bool cross_layer_equalization = false;
  // SmoothQuant moves a per-channel factor max|x|^alpha / max|w|^(1 - alpha) from a MatMul's
  // activation into its weight (rewrite/smooth_matmul_inputs.cc; float readers keep the float values).
  bool smoothquant = false;
  double smoothquant_alpha = 0.5;

  // The integer range of activations: the dtype's, halved with reduce_range.
  QuantRange activation_range() const { return QuantRangeOf(activation_dtype, reduce_range); }
  bool quantizes(const std::string& op_type) const;  // op_type is listed in op_types
};

// The op types `quantization.op_types` accepts.
const std::vector<std::string>& QuantizableOpTypes();

// Parses config["quantization"] (absent: defaults). Unknown keys and wrong types are usage errors
// naming the key path.
QuantizationOptions ParseQuantizationOptions(const nlohmann::json& config);

// True when `node_name` matches an entry of exclude_nodes (exact name, or /regex/ searched; a /regex/
// is at most 256 characters with 8 nested groups, and is not searched in names over 1024 characters).
bool IsExcluded(const QuantizationOptions& options, const std::string& node_name);

}  // namespace ptq
