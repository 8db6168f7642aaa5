// The range-method factory and the density helpers the methods share.
#include "calibrate/range_method.h"

#include <algorithm>
#include <cmath>

#include "calibrate/entropy_method.h"
#include "calibrate/minmax_method.h"
#include "calibrate/mse_method.h"
#include "calibrate/percentile_method.h"
#include "runtime/error.h"

namespace ptq {

const std::vector<std::string>& RangeMethodNames() {
  static const std::vector<std::string> names = {"minmax", "percentile", "entropy", "mse"};
  return names;
}

std::unique_ptr<RangeMethod> MakeRangeMethod(const std::string& name) {
  if (name == "minmax") return std::make_unique<MinMaxMethod>();
  if (name == "percentile") return std::make_unique<PercentileMethod>();
  if (name == "entropy") return std::make_unique<EntropyMethod>();
  if (name == "mse") return std::make_unique<MseMethod>();
  ThrowUsageError("unknown calibration method '", name, "'; valid methods: minmax, percentile, entropy, mse");
}

void ValidateRangeOptions(const RangeOptions& options) {
  if (options.levels < 4) ThrowUsageError("quantization levels must be at least 4, got ", options.levels);
  if (!(options.percentile > 0.0 && options.percentile <= 100.0)) {
    ThrowUsageError("calibration.percentile must be in (0, 100], got ", options.percentile);
  }
}

double Density::total() const {
  double t = 0;
  for (double c : counts) t += c;
  return t;
}

// Quantile(q) = origin + (i + (q*total - cum_i) / counts[i]) * width for the first non-empty bin i
// whose cumulative count reaches q*total.
double Density::Quantile(double q) const {
  const double target = std::min(std::max(q, 0.0), 1.0) * total();
  double cum = 0;
  size_t last = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] <= 0) continue;
    last = i;
    if (cum + counts[i] >= target) {
      const double frac = std::min(std::max((target - cum) / counts[i], 0.0), 1.0);
      return origin + (static_cast<double>(i) + frac) * width;
    }
    cum += counts[i];
  }
  return origin + static_cast<double>(last + 1) * width;
}

namespace {

// Splits every bin of d into equal parts (a power of two) until there are at least min_bins.
void Split(Density* d, int min_bins) {
  size_t parts = 1;
  while (d->counts.size() * parts < static_cast<size_t>(min_bins)) parts *= 2;
  if (parts == 1) return;
  std::vector<double> fine(d->counts.size() * parts);
  for (size_t i = 0; i < fine.size(); ++i) fine[i] = d->counts[i / parts] / static_cast<double>(parts);
  d->counts.swap(fine);
  d->width /= static_cast<double>(parts);
}

}  // namespace

Density SignedDensity(const Histogram& h, int min_bins, Zeros zeros) {
  Density d;
  d.width = h.bin_width();
  d.origin = h.lower(0);
  size_t used = h.bins().size();
  while (used > 1 && h.bins()[used - 1] == 0) --used;
  d.counts.assign(h.bins().begin(), h.bins().begin() + static_cast<std::ptrdiff_t>(used));
  if (zeros == Zeros::kDrop && h.zero_count() > 0) {
    d.counts[static_cast<size_t>(-h.first_bin())] -= static_cast<double>(h.zero_count());
  }
  Split(&d, min_bins);
  return d;
}

Density AbsDensity(const Histogram& h, int min_bins, Zeros zeros) {
  Density d;
  d.origin = 0.0;
  const auto& bins = h.bins();
  auto abs_bin = [&](size_t k) {
    const int64_t j = h.first_bin() + static_cast<int64_t>(k);
    return j >= 0 ? j : -j - 1;
  };
  // Data far from 0 would need more than 2 * num_bins bins from 0: merge them in pairs (exact).
  int64_t amax = 0;
  for (size_t k = 0; k < bins.size(); ++k) {
    if (bins[k] != 0) amax = std::max(amax, abs_bin(k));
  }
  int shift = 0;
  while ((amax >> shift) >= 2 * static_cast<int64_t>(bins.size())) ++shift;
  d.width = std::ldexp(h.bin_width(), shift);
  d.counts.assign(static_cast<size_t>((amax >> shift) + 1), 0.0);
  for (size_t k = 0; k < bins.size(); ++k) {
    if (bins[k] != 0) d.counts[static_cast<size_t>(abs_bin(k) >> shift)] += static_cast<double>(bins[k]);
  }
  if (zeros == Zeros::kDrop) d.counts[0] -= static_cast<double>(h.zero_count());
  Split(&d, min_bins);
  return d;
}

float MaxAbs(const Histogram& h) { return h.empty() ? 0.0f : std::max(std::fabs(h.min()), std::fabs(h.max())); }

Range SymmetricRange(const Histogram& h, double t) {
  const float c = static_cast<float>(std::min(std::max(t, 0.0), static_cast<double>(MaxAbs(h))));
  return Range{-c, c};
}

Range ClampedRange(const Histogram& h, double lo, double hi) {
  if (h.empty()) return Range{};
  const double mn = h.min(), mx = h.max();
  const float l = static_cast<float>(std::min(std::max(lo, mn), mx));
  const float u = static_cast<float>(std::min(std::max(hi, static_cast<double>(l)), mx));
  return Range{l, u};
}

}  // namespace ptq
