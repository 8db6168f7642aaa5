// Calibration table JSON writing, reading and merging.
#include "calibrate/calibration_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"

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
  if (JsonStringField(j, "format", where) != "ptq-calibration-table") ThrowInputError(where, ": not a ptq calibration table");
  const int64_t version = JsonInteger(JsonField(j, "version", where), "version", where, 0, INT32_MAX);
  if (version != kCalibrationTableVersion) {
    ThrowInputError(where, ": calibration table version ", version, " (this ptq reads version ", kCalibrationTableVersion, ")");
  }
  p->model_digest = JsonStringField(j, "model_sha256", where);
  p->config_digest = JsonStringField(j, "config_sha256", where);
  p->method = JsonStringField(j, "method", where);
  p->percentile = JsonNumberField(j, "percentile", where);
  p->shard = JsonStringField(j, "shard", where);
  CalibrationResult r;
  r.samples = JsonInteger(JsonField(j, "samples", where), "samples", where, 0, INT64_MAX);
  const nlohmann::json& tensors = JsonField(j, "tensors", where);
  if (!tensors.is_object()) ThrowInputError(where, ": 'tensors' must be an object");
  // The histograms' counters are allocated as the table is read: ptq's own tables (2048 bins per tensor)
  // always fit this budget; a small hand-made table cannot claim gigabytes with a few large num_bins.
  const uint64_t histogram_budget = std::min<uint64_t>(
      static_cast<uint64_t>(MaxTensorBytes()),
      (uint64_t{256} << 20) + tensors.size() * Histogram::kDefaultBins * sizeof(uint64_t));
  uint64_t histogram_bytes = 0;
  for (const auto& item : tensors.items()) {
    const std::string w = where + ": tensor '" + item.key() + "'";
    const nlohmann::json& e = item.value();
    CalibratedTensor t;
    t.role = RoleFromName(JsonStringField(e, "role", w), w);
    t.dtype = DtypeFromName(JsonStringField(e, "dtype", w), w);
    const auto range = JsonFloatList(e, "range", w);
    if (range.size() != 2) ThrowInputError(w, ": 'range' must be [min, max]");
    t.range_min = range[0];
    t.range_max = range[1];
    t.scales = JsonFloatList(e, "scale", w);
    for (int64_t z : JsonIntegerList(e, "zero_point", w, INT32_MIN, INT32_MAX)) t.zero_points.push_back(static_cast<int32_t>(z));
    t.observed_shape = JsonIntegerList(e, "shape", w, 0, INT64_MAX);
    if (t.scales.empty() || t.scales.size() != t.zero_points.size()) ThrowInputError(w, ": 'scale' and 'zero_point' must have the same non-zero length");
    for (float s : t.scales) {
      if (!(s > 0) || !std::isfinite(s)) ThrowInputError(w, ": scale ", s, " is not a positive finite number");
    }
    t.axis = e.contains("axis") ? JsonInteger(e.at("axis"), "axis", w, -1, static_cast<int64_t>(t.observed_shape.size()) - 1) : -1;
    if (e.contains("stats")) {
      // Counters are allocated per bin: their total is held to the memory budget before allocating.
      const nlohmann::json& stats = e.at("stats");
      const auto bins = stats.is_object() ? stats.find("num_bins") : stats.end();
      if (bins != stats.end() && bins->is_number_integer() && (bins->is_number_unsigned() || bins->get<int64_t>() > 0)) {
        const uint64_t n = bins->is_number_unsigned() ? bins->get<uint64_t>() : static_cast<uint64_t>(bins->get<int64_t>());
        histogram_bytes += std::min<uint64_t>(n, uint64_t{1} << 40) * sizeof(uint64_t);
        if (histogram_bytes > histogram_budget) {
          ThrowInputError(w, ": the table's histograms need more than the limit of ", histogram_budget,
                          " bytes (256 MiB plus 2048 bins per tensor)");
        }
      }
      t.histogram = Histogram::FromJson(stats, w + " stats");
    }
    r.tensors[item.key()] = std::move(t);
  }
  return r;
}

CalibrationResult ReadCalibrationTable(const std::string& path, TableProvenance* provenance) {
  constexpr int64_t kMaxTableBytes = int64_t{1} << 30;
  JsonLimits limits;
  limits.max_bytes = kMaxTableBytes;
  limits.max_values = int64_t{1} << 26;  // ~32,000 tensors with full 2048-bin histograms
  const nlohmann::json j = ParseJsonText(ReadFileToString(path, kMaxTableBytes), path, ErrorKind::kInput, limits);
  return CalibrationTableFromJson(j, path, provenance);
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
