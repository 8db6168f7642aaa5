// Calibration table JSON writing, reading and merging.
#include "calibrate/calibration_table.h"

#include "runtime/error.h"

namespace ptq {

namespace {

DataType DtypeFromName(const std::string& s, const std::string& where) {
  for (DataType t : {DataType::kUint8, DataType::kInt8, DataType::kUint16, DataType::kInt16, DataType::kUint4, DataType::kInt4}) {
    if (DataTypeName(t) == s) return t;
  }
  ThrowInputError(where, ": unknown dtype '", s, "'");
}

TensorRole RoleFromName(const std::string& s, const std::string& where) {
  for (TensorRole r : {TensorRole::kActivation, TensorRole::kWeight, TensorRole::kSoftmaxOutput}) {
    if (TensorRoleName(r) == s) return r;
  }
  ThrowInputError(where, ": unknown role '", s, "'");
}

template <class T>
T Field(const nlohmann::json& j, const char* key, const std::string& where) {
  if (!j.is_object() || !j.contains(key)) ThrowInputError(where, ": missing field '", key, "'");
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    ThrowInputError(where, ": field '", key, "' has the wrong type");
  }
}

}  // namespace

nlohmann::json CalibrationTableToJson(const CalibrationResult& r, const TableProvenance& p) {
  nlohmann::json tensors = nlohmann::json::object();
  for (const auto& kv : r.tensors) {
    const CalibratedTensor& t = kv.second;
    nlohmann::json e = {{"role", TensorRoleName(t.role)},
                        {"dtype", DataTypeName(t.dtype)},
                        {"range", {t.range_min, t.range_max}},
                        {"scale", t.scales},
                        {"zero_point", t.zero_points},
                        {"shape", t.observed_shape}};
    if (t.axis >= 0) e["axis"] = t.axis;
    if (t.role != TensorRole::kWeight) e["stats"] = t.histogram.ToJson();
    tensors[kv.first] = e;
  }
  return {{"format", "ptq-calibration-table"},
          {"version", kCalibrationTableVersion},
          {"ptq_version", PTQ_VERSION},
          {"model_sha256", p.model_digest},
          {"config_sha256", p.config_digest},
          {"method", p.method},
          {"percentile", p.percentile},
          {"shard", p.shard},
          {"samples", r.samples},
          {"tensors", tensors}};
}

CalibrationResult CalibrationTableFromJson(const nlohmann::json& j, const std::string& where, TableProvenance* p) {
  if (Field<std::string>(j, "format", where) != "ptq-calibration-table") ThrowInputError(where, ": not a ptq calibration table");
  const int version = Field<int>(j, "version", where);
  if (version != kCalibrationTableVersion) {
    ThrowInputError(where, ": calibration table version ", version, " (this ptq reads version ", kCalibrationTableVersion, ")");
  }
  p->model_digest = Field<std::string>(j, "model_sha256", where);
  p->config_digest = Field<std::string>(j, "config_sha256", where);
  p->method = Field<std::string>(j, "method", where);
  p->percentile = Field<double>(j, "percentile", where);
  p->shard = Field<std::string>(j, "shard", where);
  CalibrationResult r;
  r.samples = Field<int64_t>(j, "samples", where);
  const nlohmann::json& tensors = j.at("tensors");
  if (!tensors.is_object()) ThrowInputError(where, ": 'tensors' must be an object");
  for (const auto& item : tensors.items()) {
    const std::string w = where + ": tensor '" + item.key() + "'";
    const nlohmann::json& e = item.value();
    CalibratedTensor t;
    t.role = RoleFromName(Field<std::string>(e, "role", w), w);
    t.dtype = DtypeFromName(Field<std::string>(e, "dtype", w), w);
    const auto range = Field<std::vector<float>>(e, "range", w);
    if (range.size() != 2) ThrowInputError(w, ": 'range' must be [min, max]");
    t.range_min = range[0];
    t.range_max = range[1];
    t.scales = Field<std::vector<float>>(e, "scale", w);
    t.zero_points = Field<std::vector<int32_t>>(e, "zero_point", w);
    t.observed_shape = Field<std::vector<int64_t>>(e, "shape", w);
    if (t.scales.empty() || t.scales.size() != t.zero_points.size()) ThrowInputError(w, ": 'scale' and 'zero_point' must have the same non-zero length");
    for (float s : t.scales) {
      if (!(s > 0) || !std::isfinite(s)) ThrowInputError(w, ": scale ", s, " is not a positive finite number");
    }
    t.axis = e.contains("axis") ? Field<int64_t>(e, "axis", w) : -1;
    if (e.contains("stats")) t.histogram = Histogram::FromJson(e.at("stats"), w + " stats");
    r.tensors[item.key()] = std::move(t);
  }
  return r;
}

void MergeCalibrationResults(CalibrationResult* a, const TableProvenance& pa, const CalibrationResult& b,
                             const TableProvenance& pb, const std::string& where_b) {
  if (pa.model_digest != pb.model_digest) ThrowInputError(where_b, ": calibrated on a different model (sha256 differs)");
  if (pa.config_digest != pb.config_digest) ThrowInputError(where_b, ": calibrated with a different config (sha256 differs)");
  if (a->tensors.size() != b.tensors.size()) ThrowInputError(where_b, ": the tables list different tensors");
  for (auto& kv : a->tensors) {
    auto it = b.tensors.find(kv.first);
    if (it == b.tensors.end()) ThrowInputError(where_b, ": tensor '", kv.first, "' is missing");
    if (kv.second.role != TensorRole::kWeight) kv.second.histogram.Merge(it->second.histogram);
    MergeObservedShape(&kv.second.observed_shape, it->second.observed_shape);
  }
  a->samples += b.samples;
}

}  // namespace ptq
