// Calibration table JSON writing, reading and merging.
#include "calibrate/calibration_table.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "runtime/error.h"
#include "runtime/file_util.h"
#include "runtime/json_fields.h"

namespace ptq {

nlohmann::json CalibrationTableToJson(const CalibrationResult& r, const TableProvenance& p) {
  nlohmann::json tensors = nlohmann::json::object();
  for (const auto& kv : r.tensors) {
    const CalibratedTensor& t = kv.second;
    nlohmann::json e = TableEntryJson(t);
    e["range"] = {t.range_min, t.range_max};
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
          {"tensors", tensors},
          {"observed", ObservedJson(r.observed)},
          {"smoothing", r.smoothing},
          {"cross_layer_equalization", r.equalized}};
}

CalibrationResult CalibrationTableFromJson(const nlohmann::json& j, const std::string& where, TableProvenance* p) {
  *p = ParseTableHeader(j, where, true);
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
    static_cast<TensorQuant&>(t) = ParseTableEntry(e, w);
    const auto range = JsonFloatList(e, "range", w);
    if (range.size() != 2) ThrowInputError(w, ": 'range' must be [min, max]");
    t.range_min = range[0];
    t.range_max = range[1];
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
  r.observed = ParseTableObserved(j, where);
  r.smoothing = ParseTableSmoothing(j, where);
  r.equalized = ParseTableEqualized(j, where);
  return r;
}

CalibrationResult ReadCalibrationTable(const std::string& path, TableProvenance* provenance) {
  return CalibrationTableFromJson(ParseTableJson(ReadTableFile(path), path), path, provenance);
}

void MergeCalibrationResults(CalibrationResult* a, const TableProvenance& pa, const CalibrationResult& b,
                             const TableProvenance& pb, const std::string& where_b) {
  if (pa.model_digest != pb.model_digest) ThrowInputError(where_b, ": calibrated on a different model (sha256 differs)");
  if (pa.config_digest != pb.config_digest) ThrowInputError(where_b, ": calibrated with a different config (sha256 differs)");
  if (a->tensors.size() != b.tensors.size()) ThrowInputError(where_b, ": the tables list different tensors");
  if (a->equalized != b.equalized) ThrowInputError(where_b, ": one table was calibrated on the equalized model, the other not");
  if (!a->smoothing.empty() || !b.smoothing.empty()) {
    ThrowInputError(where_b, ": tables calibrated with quantization.smoothquant cannot be merged (each shard's SmoothQuant "
                             "factors come from its own data, so the shards describe differently smoothed models)");
  }
  for (auto& kv : a->tensors) {
    auto it = b.tensors.find(kv.first);
    if (it == b.tensors.end()) ThrowInputError(where_b, ": tensor '", kv.first, "' is missing");
    if (kv.second.role != TensorRole::kWeight) kv.second.histogram.Merge(it->second.histogram);
    MergeObservedShape(&kv.second.shape, it->second.shape);
    // Channel means are not merged: ptq merge-stats measures them with the merged parameters.
    kv.second.mean_axis = -1;
    kv.second.float_mean.clear();
    kv.second.quantized_mean.clear();
  }
  for (const auto& [name, t] : b.observed) {
    auto [it, fresh] = a->observed.emplace(name, t);
    if (!fresh) MergeObservedShape(&it->second.shape, t.shape);
  }
  a->samples += b.samples;
}

}  // namespace ptq
