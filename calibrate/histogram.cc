// Histogram: the canonical power-of-two grid, the two-pass Add, exact merge, mean and std from the bins.
#include "calibrate/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "calibrate/bin_index.h"
#include "runtime/error.h"

namespace ptq {
namespace {

// floor(x * 2^-e) for finite x; exact (a power-of-two scaling in double) and |result| < 2^41
// whenever e >= ilogb(|x|) - 39.
int64_t FloorScaled(float x, int e) {
  const double y = std::ldexp(static_cast<double>(x), -e);
  return static_cast<int64_t>(std::floor(y));
}

// floor(j / 2^s) for s >= 0 (>> of a negative int64 is arithmetic in every compiler ptq supports).
int64_t ShiftFloor(int64_t j, int s) { return s >= 63 ? (j < 0 ? -1 : 0) : j >> s; }

// GCC/Clang vector extension: 4 float lanes (SSE2, NEON), for the min/max scan.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

struct Scan {
  float min, max;    // over the non-NaN values (+-Inf included)
  bool all_finite;
  uint64_t zeros;    // values equal to +-0
};

// Pass 1, vectorised: NaN compares false so it never becomes min or max, and x * 0 is NaN exactly
// when x is NaN or +-Inf, so the sum `poison` of x * 0 is NaN iff some value is not finite.
// Each int32 lane counts at most n / 8 zeros: exact for the calls of at most 2^32 values that Add makes.
Scan ScanValues(const float* v, size_t n) {
  const float inf = std::numeric_limits<float>::infinity();
  Float4 mn0 = {inf, inf, inf, inf}, mn1 = mn0, mx0 = -mn0, mx1 = -mn0, p0 = {0, 0, 0, 0}, p1 = p0;
  Int4 z0 = {0, 0, 0, 0}, z1 = z0;  // a == 0 is -1 in a true lane
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Float4 a, b;
    std::memcpy(&a, v + i, sizeof a);
    std::memcpy(&b, v + i + 4, sizeof b);
    mn0 = a < mn0 ? a : mn0;
    mn1 = b < mn1 ? b : mn1;
    mx0 = a > mx0 ? a : mx0;
    mx1 = b > mx1 ? b : mx1;
    p0 += a * 0.0f;
    p1 += b * 0.0f;
    z0 += a == 0.0f;
    z1 += b == 0.0f;
  }
  Scan s{inf, -inf, true, 0};
  float poison = 0.0f;
  for (int l = 0; l < 4; ++l) {
    s.min = std::min({s.min, mn0[l], mn1[l]});
    s.max = std::max({s.max, mx0[l], mx1[l]});
    poison += p0[l] + p1[l];
    s.zeros += static_cast<uint64_t>(-static_cast<int64_t>(z0[l]) - z1[l]);
  }
  for (; i < n; ++i) {
    s.min = v[i] < s.min ? v[i] : s.min;
    s.max = v[i] > s.max ? v[i] : s.max;
    poison += v[i] * 0.0f;
    s.zeros += v[i] == 0.0f;
  }
  s.all_finite = poison == poison;
  return s;
}

bool IsCount(const nlohmann::json& v) {
  return v.is_number_unsigned() || (v.is_number_integer() && v.get<int64_t>() >= 0);
}

}  // namespace

Histogram::Histogram(int num_bins) {
  if (num_bins < 2) ThrowUsageError("histogram needs at least 2 bins, got ", num_bins);
  bins_.assign(static_cast<size_t>(num_bins), 0);
}

int Histogram::CanonicalExponent(float mn, float mx, int at_least, int num_bins) {
  const float maxabs = std::max(std::fabs(mn), std::fabs(mx));
  int e = std::max(at_least, kMinExponent);
  if (maxabs > 0) e = std::max(e, std::ilogb(maxabs) - 39);
  while (FloorScaled(mx, e) - FloorScaled(mn, e) > num_bins - 1) ++e;
  return e;
}

double Histogram::bin_width() const { return std::ldexp(1.0, exponent_); }

double Histogram::lower(int i) const { return std::ldexp(static_cast<double>(first_bin_ + i), exponent_); }

// Grows the grid to cover [new_min, new_max] (finite): e and first_bin become canonical for the
// union, and bin j at the old width moves to bin j >> (e' - e) at the new width.
void Histogram::Widen(float new_min, float new_max) {
  const float mn = std::min(min_, new_min);
  const float mx = std::max(max_, new_max);
  const int e = CanonicalExponent(mn, mx, count_ ? exponent_ : kMinExponent, num_bins());
  const int64_t first = FloorScaled(mn, e);
  min_ = mn;
  max_ = mx;
  if (count_ == 0) {
    exponent_ = e;
    first_bin_ = first;
    return;
  }
  if (e == exponent_ && first == first_bin_) return;
  std::vector<uint64_t> moved(bins_.size(), 0);
  const int shift = e - exponent_;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] == 0) continue;
    moved[static_cast<size_t>(ShiftFloor(first_bin_ + static_cast<int64_t>(k), shift) - first)] += bins_[k];
  }
  bins_.swap(moved);
  exponent_ = e;
  first_bin_ = first;
}

// Pass 2 over values whose finite ones are inside the grid, in blocks: first every value's bin
// j - first_bin (zeros and non-finite values go to four spare counters), then the increments into
// 32-bit block counters, added to the bins at the end. Zeros are added to their bin from the scan's
// count. Grids within 2^22 bins of 0 compute indices in float (FloatBinIndices, vectorised, exact
// there); others take the exact double path (FloorScaled).
template <bool kCheck>
void Histogram::AddFinite(const float* values, size_t n, uint64_t zeros) {
  const int nb = num_bins();
  thread_local std::vector<uint32_t> counts;
  if (counts.size() != bins_.size() + 4) counts.assign(bins_.size() + 4, 0);  // Flush keeps them zero
  constexpr size_t kBlock = 256;
  int32_t idx[kBlock];
  const bool float_path = first_bin_ > -(int64_t{1} << 22) && first_bin_ + nb < (int64_t{1} << 22);
  const float scale = float_path ? std::ldexp(1.0f, -exponent_) : 0.0f;
  uint32_t* c = counts.data();
  size_t since_flush = 0;
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t len = std::min(kBlock, n - start);
    const float* v = values + start;
    if (float_path) {
      FloatBinIndices(v, len, scale, static_cast<int32_t>(first_bin_), nb, kCheck, idx);
    } else {
      for (size_t i = 0; i < len; ++i) {
        const bool skip = v[i] == 0.0f || (kCheck && !std::isfinite(v[i]));
        idx[i] = skip ? nb + static_cast<int32_t>(i & 3) : static_cast<int32_t>(FloorScaled(v[i], exponent_) - first_bin_);
      }
    }
    for (size_t k = 0; k < len; ++k) ++c[idx[k]];
    since_flush += len;
    if (since_flush >= (size_t{1} << 31)) {  // 32-bit counters stay exact
      Flush(&counts);
      since_flush = 0;
    }
  }
  Flush(&counts);
  if (zeros > 0) bins_[static_cast<size_t>(-first_bin_)] += zeros;
}

// Adds the block counters to the bins and clears them (the spare counters past the bins are never
// read).
void Histogram::Flush(std::vector<uint32_t>* counts) {
  uint32_t* c = counts->data();
  for (size_t k = 0; k < bins_.size(); ++k) {
    bins_[k] += c[k];
    c[k] = 0;
  }
}

void Histogram::Add(const float* values, size_t n) {
  constexpr size_t kMaxCall = size_t{1} << 32;  // keeps ScanValues' int32 lane counters exact
  if (n > kMaxCall) {
    for (size_t i = 0; i < n; i += kMaxCall) Add(values + i, std::min(kMaxCall, n - i));
    return;
  }
  const Scan scan = ScanValues(values, n);
  float mn = scan.min, mx = scan.max;
  uint64_t bad = 0;
  if (!scan.all_finite) {  // rare: count NaN/Inf and redo min/max over the finite values
    mn = std::numeric_limits<float>::infinity();
    mx = -mn;
    for (size_t i = 0; i < n; ++i) {
      const float x = values[i];
      if (std::isnan(x)) {
        ++nan_count_;
        ++bad;
      } else if (std::isinf(x)) {
        ++(x > 0 ? pos_inf_count_ : neg_inf_count_);
        ++bad;
      } else {
        mn = std::min(mn, x);
        mx = std::max(mx, x);
      }
    }
  }
  if (bad == n) return;
  Widen(mn + 0.0f, mx + 0.0f);  // + 0.0f turns -0 into +0, so min/max do not depend on order
  if (bad) {
    AddFinite<true>(values, n, scan.zeros);
  } else {
    AddFinite<false>(values, n, scan.zeros);
  }
  count_ += n - bad;
  zero_count_ += scan.zeros;
}

void Histogram::Merge(const Histogram& other) {
  if (other.num_bins() != num_bins()) {
    ThrowInputError("cannot merge histograms of ", num_bins(), " and ", other.num_bins(), " bins");
  }
  nan_count_ += other.nan_count_;
  pos_inf_count_ += other.pos_inf_count_;
  neg_inf_count_ += other.neg_inf_count_;
  if (other.count_ == 0) return;
  Widen(other.min_, other.max_);
  const int shift = exponent_ - other.exponent_;  // >= 0: the exponent is monotone in the data
  for (size_t k = 0; k < other.bins_.size(); ++k) {
    if (other.bins_[k] == 0) continue;
    const int64_t j = ShiftFloor(other.first_bin_ + static_cast<int64_t>(k), shift);
    bins_[static_cast<size_t>(j - first_bin_)] += other.bins_[k];
  }
  count_ += other.count_;
  zero_count_ += other.zero_count_;
}

// mean = sum over bins of count * center / count, clamped to [min, max] (exact for a constant).
double Histogram::mean() const {
  if (count_ == 0) return 0.0;
  if (min_ == max_) return min_;
  double s = 0;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] != 0) s += static_cast<double>(bins_[k]) * (lower(static_cast<int>(k)) + 0.5 * bin_width());
  }
  return std::min<double>(max_, std::max<double>(min_, s / static_cast<double>(count_)));
}

// std = sqrt(sum over bins of count * (center - mean)^2 / count).
double Histogram::stddev() const {
  if (count_ == 0 || min_ == max_) return 0.0;
  const double m = mean();
  double s = 0;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] == 0) continue;
    const double d = lower(static_cast<int>(k)) + 0.5 * bin_width() - m;
    s += static_cast<double>(bins_[k]) * d * d;
  }
  return std::sqrt(s / static_cast<double>(count_));
}

bool Histogram::operator==(const Histogram& o) const {
  if (bins_ != o.bins_ || count_ != o.count_ || zero_count_ != o.zero_count_ || nan_count_ != o.nan_count_ ||
      pos_inf_count_ != o.pos_inf_count_ || neg_inf_count_ != o.neg_inf_count_) {
    return false;
  }
  if (count_ == 0) return true;
  return exponent_ == o.exponent_ && first_bin_ == o.first_bin_ && min_ == o.min_ && max_ == o.max_;
}

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
  if (num_bins < 2 || num_bins > (1u << 24)) fail("num_bins", "must be in [2, 16777216]");
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
      const int64_t run = -c.get<int64_t>();
      if (run < 2 || static_cast<uint64_t>(run) > h.bins_.size() - k) fail("counts", "has a bad zero run");
      k += static_cast<size_t>(run);
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
