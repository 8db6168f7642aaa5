// The config's `quantization` section as the rewrite uses it, parsed once into a plain struct.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/dtype.h"

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

struct RewriteConfig {
  QuantFormat format = QuantFormat::kQOperator;
  std::vector<std::string> op_types = {"MatMul", "Gemm", "Conv"};
  bool attention = true;
  std::vector<std::string> exclude_nodes;  // names, or /regex/
  std::map<std::string, TensorOverride> overrides;
  bool activation_symmetric = false;       // for override ranges
  int64_t opset = 0;                       // 0: the model's, raised to 13
};

// Parses config["quantization"] (absent: defaults). Unknown keys and wrong types are usage errors
// naming the key path (shared/config.md lists the keys).
RewriteConfig ParseRewriteConfig(const nlohmann::json& config);

// True when `node_name` matches an entry of exclude_nodes (exact name, or /regex/ searched; a /regex/
// is at most 256 characters with 8 nested groups, and is not searched in names over 1024 characters).
bool IsExcluded(const RewriteConfig& c, const std::string& node_name);

}  // namespace ptq
