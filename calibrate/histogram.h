// A streaming, mergeable histogram of float values with exact count, min, max and NaN/Inf counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ptq {

// The binning scheme (what makes merging exact).
//
// Bins live on an absolute grid: with bin width w = 2^e, absolute bin j holds the values x with
// j*w <= x < (j+1)*w, i.e. j = floor(x * 2^-e). x * 2^-e is a power-of-two scaling of a float in
// double, so it is exact and j is the exact floor. The histogram keeps num_bins counters for the
// absolute bins first_bin() .. first_bin() + num_bins - 1.
//
// e and first_bin are functions of the finite values' min, max and max|x| only:
//   e         = the smallest integer e >= max(kMinExponent, ilogb(max|x|) - 39) such that
//               floor(max * 2^-e) - floor(min * 2^-e) <= num_bins - 1
//   first_bin = floor(min * 2^-e)
// (the lower bound keeps |j| < 2^40). Adding values can only raise e, and doubling the width maps
// absolute bin j to bin floor(j / 2) = j >> 1, which contains all of bin j: re-binning is exact.
// So the bins are always exactly "every finite value seen, binned at the final e", a function of
// the multiset of values alone: any split into shards, merged in any order, and any order of Add
// calls give the same histogram bit for bit. The finite values occupy at least about num_bins / 2
// bins (with one less doubling they would not have fit).
//
// mean() and stddev() are computed from the bins (bin centres, so within half a bin width of the
// exact values): functions of the bins alone, they do not depend on the order of the values either.
//
// Exact zeros are counted too (ReLU outputs have many; range methods treat them apart).
// NaN and +-Inf are counted and otherwise ignored (not in the bins, min or max).
// Memory is O(num_bins), never O(values). Add makes two passes: a vectorised min/max scan, then
// one multiply per value to bin it (vectorised); no division, no allocation except an
// O(num_bins) re-bin when the grid changes. When every value of a call is finite and inside the
// current [min, max] (the grid cannot change), both happen in one pass; same bins either way.
class Histogram {
 public:
  static constexpr int kDefaultBins = 2048;
  static constexpr int kMinExponent = -190;

  // REQUIRES: num_bins >= 2 (calibration uses at least 2048).
  explicit Histogram(int num_bins = kDefaultBins);

  void Add(const float* values, size_t n);
  void Add(const std::vector<float>& values) { Add(values.data(), values.size()); }
  // Adds other's values. Throws an input error when the bin counts differ.
  void Merge(const Histogram& other);

  int num_bins() const { return static_cast<int>(bins_.size()); }
  uint64_t count() const { return count_; }  // finite values (those in the bins)
  uint64_t zero_count() const { return zero_count_; }  // values exactly +-0 (also in the bins)
  uint64_t nan_count() const { return nan_count_; }
  uint64_t pos_inf_count() const { return pos_inf_count_; }
  uint64_t neg_inf_count() const { return neg_inf_count_; }
  bool empty() const { return count_ == 0; }
  // Finite min and max; +inf and -inf while empty.
  float min() const { return min_; }
  float max() const { return max_; }
  double mean() const;    // from the bins (see above); 0 while empty
  double stddev() const;  // population standard deviation from the bins; 0 while empty

  // The grid: bin i of bins() covers [lower(i), lower(i) + bin_width()).
  int exponent() const { return exponent_; }
  double bin_width() const;
  int64_t first_bin() const { return first_bin_; }
  double lower(int i) const;
  const std::vector<uint64_t>& bins() const { return bins_; }

  // Compact JSON: counts with runs of k >= 2 zeros written as -k, trailing zeros dropped;
  // mean/std for people (ignored when read).
  nlohmann::json ToJson() const;
  // Throws an input error naming `where` and the field when the shape or invariants are wrong.
  static Histogram FromJson(const nlohmann::json& j, const std::string& where = "histogram");

  bool operator==(const Histogram& o) const;
  bool operator!=(const Histogram& o) const { return !(*this == o); }

 private:
  void Widen(float new_min, float new_max);
  bool FloatGrid() const;
  std::pair<size_t, size_t> BinRange(float mn, float mx) const;
  uint32_t* Counters(size_t* stride, size_t* copies) const;
  bool AddInGrid(const float* values, size_t n);
  template <bool kCheck>
  void AddFinite(const float* values, size_t n, uint64_t zeros, float mn, float mx);
  void Flush(uint32_t* counts, size_t stride, size_t copies, size_t lo, size_t hi);
  static int CanonicalExponent(float mn, float mx, int at_least, int num_bins);

  std::vector<uint64_t> bins_;
  int exponent_ = kMinExponent;
  int64_t first_bin_ = 0;
  uint64_t count_ = 0, zero_count_ = 0, nan_count_ = 0, pos_inf_count_ = 0, neg_inf_count_ = 0;
  float min_ = std::numeric_limits<float>::infinity();
  float max_ = -std::numeric_limits<float>::infinity();
};

}  // namespace ptq
