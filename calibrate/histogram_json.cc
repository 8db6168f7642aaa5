// Histogram's JSON form: compact counts, and a reader that checks every invariant of the grid.
#include "calibrate/histogram.h"

#include "calibrate/bin_index.h"
#include "runtime/error.h"

namespace ptq {
namespace {

bool IsCount(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

}  // namespace

nlohmann::json Histogram::ToJson() const {
  nlohmann::json j = {{"num_bins", num_bins()}, {"count", count_}, {"zeros", zero_count_}, {"nan", nan_count_},
                      {"pos_inf", pos_inf_count_}, {"neg_inf", neg_inf_count_}};
  if (count_ == 0) return j;
  j["min"] = min_;
  j["max"] = max_;
  j["mean"] = mean();
  j["std"] = stddev();
  j["exponent"] = exponent_;
  j["first_bin"] = first_bin_;
  size_t used = bins_.size();
  while (used > 0 && bins_[used - 1] == 0) --used;
  nlohmann::json counts = nlohmann::json::array();
  for (size_t k = 0; k < used;) {
    size_t run = 0;
    while (k + run < used && bins_[k + run] == 0) ++run;
    if (run >= 2) {
      counts.push_back(-static_cast<int64_t>(run));
      k += run;
    } else {
      counts.push_back(bins_[k++]);
    }
  }
  j["counts"] = std::move(counts);
  return j;
}

Histogram Histogram::FromJson(const nlohmann::json& j, const std::string& where) {
  auto fail = [&](const char* field, const std::string& what) -> void {
    ThrowInputError(where, ": field '", field, "' ", what);
  };
  if (!j.is_object()) ThrowInputError(where, ": expected a JSON object, got ", j.type_name());
  auto get = [&](const char* field) -> const nlohmann::json& {
    if (!j.contains(field)) fail(field, "is missing");
    return j.at(field);
  };
  auto get_count = [&](const char* field) {
    const auto& v = get(field);
    if (!IsCount(v)) fail(field, "must be a non-negative integer");
    return v.get<uint64_t>();
  };
  auto get_float = [&](const char* field) {
    const auto& v = get(field);
    if (!v.is_number()) fail(field, "must be a number");
    const double d = v.get<double>();
    if (static_cast<double>(static_cast<float>(d)) != d) fail(field, "must be a float32 value");
    return static_cast<float>(d);
  };
  const uint64_t num_bins = get_count("num_bins");
  if (num_bins < 2 || num_bins > (1u << 16)) fail("num_bins", "must be in [2, 65536]");
  Histogram h(static_cast<int>(num_bins));
  h.count_ = get_count("count");
  h.zero_count_ = get_count("zeros");
  if (h.zero_count_ > h.count_) fail("zeros", "must not exceed 'count'");
  h.nan_count_ = get_count("nan");
  h.pos_inf_count_ = get_count("pos_inf");
  h.neg_inf_count_ = get_count("neg_inf");
  if (h.count_ == 0) return h;

  h.min_ = get_float("min");
  h.max_ = get_float("max");
  if (!(h.min_ <= h.max_)) fail("min", "must not exceed 'max'");
  const auto& e = get("exponent");
  if (!e.is_number_integer() ||
      e.get<int64_t>() != CanonicalExponent(h.min_, h.max_, kMinExponent, h.num_bins())) {
    fail("exponent", "must be the canonical exponent for min, max and num_bins");
  }
  h.exponent_ = e.get<int>();
  const auto& first = get("first_bin");
  if (!first.is_number_integer() || first.get<int64_t>() != FloorScaled(h.min_, h.exponent_)) {
    fail("first_bin", "must be floor(min / 2^exponent)");
  }
  h.first_bin_ = first.get<int64_t>();
  const auto& counts = get("counts");
  if (!counts.is_array()) fail("counts", "must be an array");
  size_t k = 0;
  uint64_t total = 0;
  for (const auto& c : counts) {
    if (!c.is_number_integer()) fail("counts", "must hold integers");
    if (IsCount(c)) {
      if (k >= h.bins_.size()) fail("counts", "has more entries than num_bins");
      h.bins_[k++] = c.get<uint64_t>();
      total += c.get<uint64_t>();
    } else {
      const int64_t neg = c.get<int64_t>();  // -run; compared before negating (-INT64_MIN overflows)
      if (neg > -2 || neg < -static_cast<int64_t>(h.bins_.size() - k)) fail("counts", "has a bad zero run");
      k += static_cast<size_t>(-neg);
    }
  }
  const size_t last = static_cast<size_t>(FloorScaled(h.max_, h.exponent_) - h.first_bin_);
  if (total != h.count_ || k != last + 1 || h.bins_[0] == 0 || h.bins_[last] == 0) {
    fail("counts", "must sum to 'count', with the bins of min and max non-empty and nothing beyond max");
  }
  if (h.zero_count_ > 0 && (h.min_ > 0 || h.max_ < 0 || h.bins_[static_cast<size_t>(-h.first_bin_)] < h.zero_count_)) {
    fail("zeros", "must fit in the bin holding 0");
  }
  return h;
}

}  // namespace ptq
