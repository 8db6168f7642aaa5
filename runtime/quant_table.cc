// Reading and writing the calibration table's quantization entries and header.
#include "runtime/quant_table.h"

#include <cmath>
#include <limits>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"
#include "runtime/quant_math.h"
#include "runtime/sha256.h"

namespace ptq {
namespace {

constexpr int64_t kMaxTableBytes = int64_t{1} << 30;

DataType DtypeOf(const std::string& s, const std::string& where) {
  if (s == "uint8") return DataType::kUint8;
  if (s == "int8") return DataType::kInt8;
  ThrowInputError(where, ": dtype must be uint8 or int8, got '", s, "'");
}

TensorRole RoleOf(const std::string& s, const std::string& where) {
  for (TensorRole r : {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kSoftmaxOutput}) {
    if (TensorRoleName(r) == s) return r;
  }
  ThrowInputError(where, ": unknown role '", s, "' (activation, weight or softmax_output)");
}

}  // namespace

std::string TensorRoleName(TensorRole role) {
  switch (role) {
    case TensorRole::kWeight: return "weight";
    case TensorRole::kSoftmaxOutput: return "softmax_output";
    default: return "activation";
  }
}

std::string ReadTableFile(const std::string& path) { return ReadFileToString(path, kMaxTableBytes); }

nlohmann::json ParseTableJson(const std::string& text, const std::string& where) {
  JsonLimits limits;
  limits.max_bytes = kMaxTableBytes;
  limits.max_values = int64_t{1} << 26;  // ~32,000 tensors with full 2048-bin histograms
  return ParseJsonText(text, where, ErrorKind::kInput, limits);
}

TableProvenance ParseTableHeader(const nlohmann::json& j, const std::string& where, bool full) {
  if (!j.is_object() || !j.contains("format") || j.at("format") != "ptq-calibration-table") {
    ThrowInputError(where, ": not a ptq calibration table (field 'format')");
  }
  const nlohmann::json& version = JsonField(j, "version", where);
  if (version != kCalibrationTableVersion) {
    ThrowInputError(where, ": table version ", version.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    " is not supported (", kCalibrationTableVersion, " is)");
  }
  TableProvenance p;
  p.model_digest = JsonStringField(j, "model_sha256", where);
  p.config_digest = JsonStringField(j, "config_sha256", where);
  if (full) {
    p.method = JsonStringField(j, "method", where);
    p.percentile = JsonNumberField(j, "percentile", where);
    p.shard = JsonStringField(j, "shard", where);
  }
  return p;
}

TensorQuant ParseTableEntry(const nlohmann::json& e, const std::string& where) {
  TensorQuant q;
  q.role = RoleOf(JsonStringField(e, "role", where), where);
  q.dtype = DtypeOf(JsonStringField(e, "dtype", where), where);
  q.scales = JsonFloatList(e, "scale", where);
  const QuantRange range = QuantRangeOf(q.dtype);
  for (int64_t z : JsonIntegerList(e, "zero_point", where, range.qmin, range.qmax)) {
    q.zero_points.push_back(static_cast<int32_t>(z));
  }
  q.shape = JsonIntegerList(e, "shape", where, 0, std::numeric_limits<int64_t>::max());
  q.axis = e.contains("axis") ? JsonInteger(e.at("axis"), "axis", where, -1, static_cast<int64_t>(q.shape.size()) - 1) : -1;
  if (q.scales.empty() || q.scales.size() != q.zero_points.size()) {
    ThrowInputError(where, ": 'scale' and 'zero_point' must be non-empty and of the same length");
  }
  for (float s : q.scales) {
    if (!(s > 0.0f) || !std::isfinite(s)) ThrowInputError(where, ": scale ", s, " is not a positive finite number");
  }
  if (q.scales.size() > 1 && q.axis < 0) ThrowInputError(where, ": several scales need an 'axis'");
  if (e.contains("channel_means")) {
    const nlohmann::json& m = e.at("channel_means");
    const std::string w = where + ": channel_means";
    q.mean_axis = JsonInteger(JsonField(m, "axis", w), "axis", w, 0, static_cast<int64_t>(q.shape.size()) - 1);
    q.float_mean = JsonFloatList(m, "float", w);
    q.quantized_mean = JsonFloatList(m, "quantized", w);
    if (q.float_mean.size() != q.quantized_mean.size() ||
        static_cast<int64_t>(q.float_mean.size()) != q.shape[static_cast<size_t>(q.mean_axis)]) {
      ThrowInputError(w, ": 'float' and 'quantized' need one mean per channel along axis ", q.mean_axis, " of shape ",
                      ShapeToString(q.shape));
    }
    for (size_t c = 0; c < q.float_mean.size(); ++c) {
      if (!std::isfinite(q.float_mean[c]) || !std::isfinite(q.quantized_mean[c])) ThrowInputError(w, ": mean of channel ", c, " is not finite");
    }
  }
  if (q.scales.size() > 1 && static_cast<int64_t>(q.scales.size()) != q.shape[static_cast<size_t>(q.axis)]) {
    ThrowInputError(where, ": ", q.scales.size(), " scales along axis ", q.axis, " of shape ", ShapeToString(q.shape),
                    " (one per channel expected)");
  }
  return q;
}

nlohmann::json TableEntryJson(const TensorQuant& q) {
  nlohmann::json e = {{"role", TensorRoleName(q.role)},
                      {"dtype", DataTypeName(q.dtype)},
                      {"scale", q.scales},
                      {"zero_point", q.zero_points},
                      {"shape", q.shape}};
  if (q.axis >= 0) e["axis"] = q.axis;
  if (!q.float_mean.empty()) {
    e["channel_means"] = {{"axis", q.mean_axis}, {"float", q.float_mean}, {"quantized", q.quantized_mean}};
  }
  return e;
}

std::map<std::string, ObservedTensor> ParseTableObserved(const nlohmann::json& j, const std::string& where) {
  std::map<std::string, ObservedTensor> observed;
  if (!j.is_object() || !j.contains("observed")) return observed;
  const nlohmann::json& s = j.at("observed");
  if (!s.is_object()) ThrowInputError(where, ": field 'observed' must be an object, got ", JsonTypeName(s));
  for (const auto& [name, e] : s.items()) {
    const std::string w = where + ": observed tensor '" + name + "'";
    ObservedTensor t;
    const std::string dtype = JsonStringField(e, "dtype", w);
    for (int code = 1; code <= 22 && t.dtype == DataType::kUndefined; ++code) {
      if (DataTypeName(static_cast<DataType>(code)) == dtype) t.dtype = static_cast<DataType>(code);
    }
    if (t.dtype == DataType::kUndefined) ThrowInputError(w, ": unknown dtype '", dtype, "'");
    t.shape = JsonIntegerList(e, "shape", w, 0, std::numeric_limits<int64_t>::max());
    observed[name] = std::move(t);
  }
  return observed;
}

nlohmann::json ObservedJson(const std::map<std::string, ObservedTensor>& observed) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [name, t] : observed) j[name] = {{"dtype", DataTypeName(t.dtype)}, {"shape", t.shape}};
  return j;
}

QuantTable ReadQuantTable(const std::string& path) {
  return ParseQuantTable(ReadTableFile(path), path);
}

QuantTable ParseQuantTable(const std::string& text, const std::string& path) {
  const nlohmann::json j = ParseTableJson(text, path);
  QuantTable t;
  t.file_sha256 = Sha256Hex(text);
  const TableProvenance p = ParseTableHeader(j, path, false);
  t.model_sha256 = p.model_digest;
  t.config_sha256 = p.config_digest;
  const nlohmann::json& tensors = JsonField(j, "tensors", path);
  if (!tensors.is_object()) ThrowInputError(path, ": field 'tensors' must be an object, got ", JsonTypeName(tensors));
  for (const auto& [name, e] : tensors.items()) t.tensors[name] = ParseTableEntry(e, path + ": tensor '" + name + "'");
  t.observed = ParseTableObserved(j, path);
  t.smoothing = ParseTableSmoothing(j, path);
  t.equalized = ParseTableEqualized(j, path);
  return t;
}

bool ParseTableEqualized(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object() || !j.contains("cross_layer_equalization")) return false;
  const nlohmann::json& v = j.at("cross_layer_equalization");
  if (!v.is_boolean()) ThrowInputError(where, ": field 'cross_layer_equalization' must be a boolean, got ", JsonTypeName(v));
  return v.get<bool>();
}

SmoothingFactorMap ParseTableSmoothing(const nlohmann::json& j, const std::string& where) {
  SmoothingFactorMap out;
  if (!j.is_object() || !j.contains("smoothing")) return out;
  const nlohmann::json& s = j.at("smoothing");
  if (!s.is_object()) ThrowInputError(where, ": field 'smoothing' must be an object, got ", JsonTypeName(s));
  for (const auto& [name, v] : s.items()) {
    const std::string w = where + ": smoothing of '" + name + "'";
    if (!v.is_array() || v.empty()) ThrowInputError(w, ": expected a non-empty list of factors");
    std::vector<float>& f = out[name];
    for (const auto& x : v) {
      if (!x.is_number()) ThrowInputError(w, ": factors must be numbers, got ", JsonTypeName(x));
      f.push_back(x.get<float>());
      if (!(f.back() > 0.0f) || !std::isfinite(f.back())) ThrowInputError(w, ": factor ", f.back(), " is not a positive finite number");
    }
  }
  return out;
}

}  // namespace ptq
