// Parsing of the `quantization` config section, and the exclusion patterns.
#include "runtime/quantization_options.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "runtime/error.h"
#include "runtime/json_fields.h"

namespace ptq {
namespace {

constexpr size_t kMaxRegexLength = 256;
constexpr int kMaxRegexGroups = 8;
constexpr size_t kMaxRegexSubject = 1024;  // longer node names are matched exactly only

// libstdc++'s default (depth-first) matcher recurses once per character of the subject and can take
// exponential time; its breadth-first mode is polynomial and its recursion is bounded by the pattern.
std::regex MakeRegex(const std::string& pattern) {
#ifdef __GLIBCXX__
  return std::regex(pattern, std::regex_constants::ECMAScript | std::regex_constants::__polynomial);
#else
  return std::regex(pattern);
#endif
}

DataType DtypeChoice(const JsonSection& s, const std::string& key, const std::string& def = "uint8") {
  return s.GetChoice(key, def, {"uint8", "int8"}) == "int8" ? DataType::kInt8 : DataType::kUint8;
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
    if (!std::isfinite(o.min) || !std::isfinite(o.max)) ThrowUsageError("'", path, "': min and max must be finite float32 values");
    if (!(o.min <= o.max)) ThrowUsageError("'", path, ".min' must not exceed '", path, ".max'");
  }
  o.has_scale = s.Has("scale");
  if (o.has_scale) {
    if (o.has_range) ThrowUsageError("'", path, "': give either min/max or scale/zero_point, not both");
    o.scale = static_cast<float>(s.GetNumber("scale", 1));
    if (!(o.scale > 0) || !std::isfinite(o.scale)) ThrowUsageError("'", path, ".scale' must be a positive finite float32 value");
    const int64_t zp = s.GetInt("zero_point", 0, -128);
    if (zp > 255) ThrowUsageError("'", path, ".zero_point' must be at most 255, got ", zp);
    o.zero_point = static_cast<int32_t>(zp);
  }
  if (!o.has_range && !o.has_scale && o.dtype == DataType::kUndefined) {
    ThrowUsageError("'", path, "' sets nothing: give dtype, min/max or scale/zero_point");
  }
  return o;
}

// std::regex compiles and matches recursively: a long or deeply grouped pattern can overflow the stack.
void CheckRegexSize(const std::string& e) {
  int depth = 0, max_depth = 0;
  for (char ch : e) {
    if (ch == '(') max_depth = std::max(max_depth, ++depth);
    if (ch == ')') --depth;
  }
  if (e.size() > kMaxRegexLength || max_depth > kMaxRegexGroups) {
    ThrowUsageError("'quantization.exclude_nodes' entry ", e.substr(0, 40), e.size() > 40 ? "..." : "", " is too complex (at most ",
                    kMaxRegexLength, " characters and ", kMaxRegexGroups, " nested groups)");
  }
}

}  // namespace

const std::vector<std::string>& QuantizableOpTypes() {
  static const std::vector<std::string> kOps = {"MatMul", "Gemm", "Conv", "Gather"};
  return kOps;
}

bool QuantizationOptions::quantizes(const std::string& op_type) const {
  return std::find(op_types.begin(), op_types.end(), op_type) != op_types.end();
}

QuantizationOptions ParseQuantizationOptions(const nlohmann::json& config) {
  QuantizationOptions c;
  if (!config.contains("quantization")) return c;
  JsonSection q(config.at("quantization"), "quantization",
                {"format", "activations", "weights", "op_types", "attention", "exclude_nodes", "overrides", "opset", "fallback",
                 "fallback_budget", "bias_correction", "cross_layer_equalization", "smoothquant", "smoothquant_alpha"});
  c.format = q.GetChoice("format", "qoperator", {"qoperator", "qdq"}) == "qdq" ? QuantFormat::kQdq : QuantFormat::kQOperator;
  if (q.Has("activations")) {
    JsonSection a(q.Get("activations"), "quantization.activations", {"dtype", "symmetric", "reduce_range"});
    c.activation_dtype = DtypeChoice(a, "dtype");
    c.activation_symmetric = a.GetBool("symmetric", false);
    c.reduce_range = a.GetBool("reduce_range", false);
  }
  if (q.Has("weights")) {
    JsonSection w(q.Get("weights"), "quantization.weights", {"dtype", "symmetric", "per_channel"});
    c.weight_dtype = DtypeChoice(w, "dtype", "int8");
    c.weight_symmetric = w.GetBool("symmetric", true);
    c.per_channel = w.GetBool("per_channel", true);
  }
  if (q.Has("op_types")) {
    c.op_types = q.GetStringList("op_types");
    for (const auto& t : c.op_types) {
      if (std::find(QuantizableOpTypes().begin(), QuantizableOpTypes().end(), t) == QuantizableOpTypes().end()) {
        ThrowUsageError("'quantization.op_types' entry '", t, "' is not supported (MatMul, Gemm, Conv, Gather are)");
      }
    }
  }
  c.attention = q.GetBool("attention", true);
  if (q.Has("exclude_nodes")) c.exclude_nodes = q.GetStringList("exclude_nodes");
  for (const auto& e : c.exclude_nodes) {
    if (e.size() >= 2 && e.front() == '/' && e.back() == '/') {
      CheckRegexSize(e);
      try {
        MakeRegex(e.substr(1, e.size() - 2));
      } catch (const std::regex_error& err) {
        ThrowUsageError("'quantization.exclude_nodes' entry ", e, " is not a valid regex: ", err.what());
      }
    }
  }
  if (q.Has("overrides")) {
    const nlohmann::json& ov = q.Get("overrides");
    if (!ov.is_object()) ThrowUsageError("'quantization.overrides' must be an object, got ", JsonTypeName(ov));
    for (const auto& [name, v] : ov.items()) c.overrides[name] = ParseOverride(v, "quantization.overrides." + name);
  }
  c.opset = q.GetInt("opset", 0, 0);
  if (c.opset != 0 && c.opset < 13) ThrowUsageError("'quantization.opset' must be 13 or higher, got ", c.opset);
  c.fallback_auto = q.GetChoice("fallback", "none", {"none", "auto"}) == "auto";
  c.fallback_budget = q.GetInt("fallback_budget", 12, 1);
  c.bias_correction = q.GetBool("bias_correction", c.bias_correction);
  c.cross_layer_equalization = q.GetBool("cross_layer_equalization", c.cross_layer_equalization);
  c.smoothquant = q.GetBool("smoothquant", c.smoothquant);
  c.smoothquant_alpha = q.GetNumber("smoothquant_alpha", c.smoothquant_alpha);
  if (!(c.smoothquant_alpha >= 0 && c.smoothquant_alpha <= 1)) {
    ThrowUsageError("'quantization.smoothquant_alpha' is a number in [0, 1], got ", c.smoothquant_alpha);
  }
  return c;
}

namespace {

// The compiled form of `pattern`, compiled once per thread (IsExcluded is asked for every node).
const std::regex& CompiledRegex(const std::string& pattern) {
  thread_local std::map<std::string, std::regex> cache;
  auto it = cache.find(pattern);
  if (it == cache.end()) it = cache.emplace(pattern, MakeRegex(pattern)).first;
  return it->second;
}

}  // namespace

bool IsExcluded(const QuantizationOptions& c, const std::string& node_name) {
  for (const auto& e : c.exclude_nodes) {
    if (e.size() >= 2 && e.front() == '/' && e.back() == '/') {
      if (node_name.size() <= kMaxRegexSubject && std::regex_search(node_name, CompiledRegex(e.substr(1, e.size() - 2)))) {
        return true;
      }
    } else if (e == node_name) {
      return true;
    }
  }
  return false;
}

}  // namespace ptq
