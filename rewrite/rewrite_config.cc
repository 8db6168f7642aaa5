// Parsing of the `quantization` config section for the rewrite stage.
#include "rewrite/rewrite_config.h"

#include <regex>

#include "runtime/error.h"
#include "runtime/json_fields.h"

namespace ptq {
namespace {

DataType DtypeChoice(const JsonSection& s, const std::string& key) {
  return s.GetChoice(key, "uint8", {"uint8", "int8"}) == "int8" ? DataType::kInt8 : DataType::kUint8;
}

TensorOverride ParseOverride(const nlohmann::json& v, const std::string& path) {
  JsonSection s(v, path, {"dtype", "min", "max", "scale", "zero_point"});
  TensorOverride o;
  if (s.Has("dtype")) o.dtype = DtypeChoice(s, "dtype");
  o.has_range = s.Has("min") || s.Has("max");
  if (o.has_range) {
    if (!s.Has("min") || !s.Has("max")) ThrowUsageError("'", path, "' needs both 'min' and 'max'");
    o.min = static_cast<float>(s.GetNumber("min", 0));
    o.max = static_cast<float>(s.GetNumber("max", 0));
    if (!(o.min <= o.max)) ThrowUsageError("'", path, ".min' must not exceed '", path, ".max'");
  }
  o.has_scale = s.Has("scale");
  if (o.has_scale) {
    if (o.has_range) ThrowUsageError("'", path, "': give either min/max or scale/zero_point, not both");
    o.scale = static_cast<float>(s.GetNumber("scale", 1));
    if (!(o.scale > 0)) ThrowUsageError("'", path, ".scale' must be positive");
    o.zero_point = static_cast<int32_t>(s.GetInt("zero_point", 0, -128));
  }
  if (!o.has_range && !o.has_scale && o.dtype == DataType::kUndefined) {
    ThrowUsageError("'", path, "' sets nothing: give dtype, min/max or scale/zero_point");
  }
  return o;
}

}  // namespace

RewriteConfig ParseRewriteConfig(const nlohmann::json& config) {
  RewriteConfig c;
  if (!config.contains("quantization")) return c;
  JsonSection q(config.at("quantization"), "quantization",
                {"format", "activations", "weights", "op_types", "attention", "exclude_nodes", "overrides", "opset"});
  c.format = q.GetChoice("format", "qoperator", {"qoperator", "qdq"}) == "qdq" ? QuantFormat::kQdq : QuantFormat::kQOperator;
  if (q.Has("op_types")) {
    c.op_types = q.GetStringList("op_types");
    for (const auto& t : c.op_types) {
      if (t != "MatMul" && t != "Gemm" && t != "Conv" && t != "Gather") {
        ThrowUsageError("'quantization.op_types' entry '", t, "' is not supported (MatMul, Gemm, Conv, Gather are)");
      }
    }
  }
  c.attention = q.GetBool("attention", true);
  if (q.Has("exclude_nodes")) c.exclude_nodes = q.GetStringList("exclude_nodes");
  for (const auto& e : c.exclude_nodes) {
    if (e.size() >= 2 && e.front() == '/' && e.back() == '/') {
      try {
        std::regex r(e.substr(1, e.size() - 2));
      } catch (const std::regex_error& err) {
        ThrowUsageError("'quantization.exclude_nodes' entry ", e, " is not a valid regex: ", err.what());
      }
    }
  }
  if (q.Has("activations")) {
    JsonSection a(q.Get("activations"), "quantization.activations", {"dtype", "symmetric", "reduce_range"});
    c.activation_symmetric = a.GetBool("symmetric", false);
  }
  if (q.Has("overrides")) {
    const nlohmann::json& ov = q.Get("overrides");
    if (!ov.is_object()) ThrowUsageError("'quantization.overrides' must be an object, got ", JsonTypeName(ov));
    for (const auto& [name, v] : ov.items()) c.overrides[name] = ParseOverride(v, "quantization.overrides." + name);
  }
  c.opset = q.GetInt("opset", 0, 0);
  if (c.opset != 0 && c.opset < 13) ThrowUsageError("'quantization.opset' must be 13 or higher, got ", c.opset);
  return c;
}

bool IsExcluded(const RewriteConfig& c, const std::string& node_name) {
  for (const auto& e : c.exclude_nodes) {
    if (e.size() >= 2 && e.front() == '/' && e.back() == '/') {
      if (std::regex_search(node_name, std::regex(e.substr(1, e.size() - 2)))) return true;
    } else if (e == node_name) {
      return true;
    }
  }
  return false;
}

}  // namespace ptq
