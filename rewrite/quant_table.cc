// Reading the calibration table's per-tensor quantization parameters for the rewrite.
#include "rewrite/quant_table.h"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"
#include "runtime/sha256.h"

namespace ptq {
namespace {

constexpr int64_t kMaxTableBytes = int64_t{1} << 30;

DataType DtypeOf(const std::string& s, const std::string& where) {
  if (s == "uint8") return DataType::kUint8;
  if (s == "int8") return DataType::kInt8;
  ThrowInputError(where, ": dtype must be uint8 or int8, got '", s, "'");
}

}  // namespace

QuantTable ReadQuantTable(const std::string& path) {
  return ParseQuantTable(ReadFileToString(path, kMaxTableBytes), path);
}

QuantTable ParseQuantTable(const std::string& text, const std::string& path) {
  JsonLimits limits;
  limits.max_bytes = kMaxTableBytes;
  limits.max_values = int64_t{1} << 26;  // ~32,000 tensors with full 2048-bin histograms
  const nlohmann::json j = ParseJsonText(text, path, ErrorKind::kInput, limits);
  QuantTable t;
  t.file_sha256 = Sha256Hex(text);
  if (!j.is_object() || !j.contains("format") || j.at("format") != "ptq-calibration-table") {
    ThrowInputError(path, ": not a ptq calibration table (field 'format')");
  }
  const nlohmann::json& version = JsonField(j, "version", path);
  if (version != 1) {
    ThrowInputError(path, ": table version ", version.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                    " is not supported (1 is)");
  }
  t.model_sha256 = JsonStringField(j, "model_sha256", path);
  t.config_sha256 = JsonStringField(j, "config_sha256", path);
  const nlohmann::json& tensors = JsonField(j, "tensors", path);
  if (!tensors.is_object()) ThrowInputError(path, ": field 'tensors' must be an object, got ", JsonTypeName(tensors));
  for (const auto& [name, e] : tensors.items()) {
    const std::string where = path + ": tensor '" + name + "'";
    TensorQuant q;
    q.role = JsonStringField(e, "role", where);
    const std::string dtype = JsonStringField(e, "dtype", where);
    q.dtype = q.role == "weight" && dtype == "int32" ? DataType::kInt32 : DtypeOf(dtype, where);
    q.scales = JsonFloatList(e, "scale", where);
    const int64_t zmin = q.dtype == DataType::kUint8 ? 0 : q.dtype == DataType::kInt8 ? -128 : INT32_MIN;
    const int64_t zmax = q.dtype == DataType::kUint8 ? 255 : q.dtype == DataType::kInt8 ? 127 : INT32_MAX;
    for (int64_t z : JsonIntegerList(e, "zero_point", where, zmin, zmax)) q.zero_points.push_back(static_cast<int32_t>(z));
    q.shape = JsonIntegerList(e, "shape", where, 0, std::numeric_limits<int64_t>::max());
    q.axis = e.contains("axis") ? JsonInteger(e.at("axis"), "axis", where, -1, static_cast<int64_t>(q.shape.size()) - 1) : -1;
    if (q.scales.empty() || q.scales.size() != q.zero_points.size()) {
      ThrowInputError(where, ": 'scale' and 'zero_point' must be non-empty and of the same length");
    }
    for (float s : q.scales) {
      if (!(s > 0.0f) || !std::isfinite(s)) ThrowInputError(where, ": scale ", s, " is not a positive finite number");
    }
    if (q.scales.size() > 1 && q.axis < 0) ThrowInputError(where, ": several scales need an 'axis'");
    if (q.scales.size() > 1 && static_cast<int64_t>(q.scales.size()) != q.shape[static_cast<size_t>(q.axis)]) {
      ThrowInputError(where, ": ", q.scales.size(), " scales along axis ", q.axis, " of shape ", ShapeToString(q.shape),
                      " (one per channel expected)");
    }
    t.tensors[name] = std::move(q);
  }
  return t;
}

}  // namespace ptq
