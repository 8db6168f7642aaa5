// Reading the calibration table's per-tensor quantization parameters for the rewrite.
#include "rewrite/quant_table.h"

#include <cmath>

#include <nlohmann/json.hpp>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/sha256.h"

namespace ptq {
namespace {

DataType DtypeOf(const std::string& s, const std::string& where) {
  if (s == "uint8") return DataType::kUint8;
  if (s == "int8") return DataType::kInt8;
  ThrowInputError(where, ": dtype must be uint8 or int8, got '", s, "'");
}

}  // namespace

QuantTable ReadQuantTable(const std::string& path) {
  return ParseQuantTable(ReadFileToString(path, int64_t{1} << 30), path);
}

QuantTable ParseQuantTable(const std::string& text, const std::string& path) {
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    ThrowInputError(path, ": not valid JSON (", e.what(), ")");
  }
  QuantTable t;
  t.file_sha256 = Sha256Hex(text);
  try {
    if (!j.is_object() || j.value("format", "") != "ptq-calibration-table") {
      ThrowInputError(path, ": not a ptq calibration table (field 'format')");
    }
    if (j.at("version").get<int>() != 1) ThrowInputError(path, ": table version ", j.at("version").dump(), " is not supported (1 is)");
    t.model_sha256 = j.at("model_sha256").get<std::string>();
    t.config_sha256 = j.at("config_sha256").get<std::string>();
    for (const auto& [name, e] : j.at("tensors").items()) {
      const std::string where = path + ": tensor '" + name + "'";
      TensorQuant q;
      q.role = e.at("role").get<std::string>();
      q.dtype = q.role == "weight" && e.at("dtype").get<std::string>() == "int32" ? DataType::kInt32
                                                                                 : DtypeOf(e.at("dtype").get<std::string>(), where);
      q.scales = e.at("scale").get<std::vector<float>>();
      q.zero_points = e.at("zero_point").get<std::vector<int32_t>>();
      q.axis = e.contains("axis") ? e.at("axis").get<int64_t>() : -1;
      q.shape = e.at("shape").get<std::vector<int64_t>>();
      if (q.scales.empty() || q.scales.size() != q.zero_points.size()) {
        ThrowInputError(where, ": 'scale' and 'zero_point' must be non-empty and of the same length");
      }
      for (float s : q.scales) {
        if (!(s > 0.0f) || !std::isfinite(s)) ThrowInputError(where, ": scale ", s, " is not a positive finite number");
      }
      if (q.scales.size() > 1 && q.axis < 0) ThrowInputError(where, ": several scales need an 'axis'");
      t.tensors[name] = std::move(q);
    }
  } catch (const nlohmann::json::exception& e) {
    ThrowInputError(path, ": malformed calibration table (", e.what(), ")");
  }
  return t;
}

}  // namespace ptq
