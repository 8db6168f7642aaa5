// The entropy range method: the threshold whose 8-bit quantization loses the least information (KL divergence).
#include "calibrate/entropy_method.h"

#include <cmath>
#include <limits>

namespace ptq {
namespace {

constexpr int kMinBins = 2048;  // resolution of the |x| density the candidates are taken from

double XLogX(double x) { return x > 0 ? x * std::log(x) : 0.0; }

}  // namespace

size_t EntropyMethod::BestThresholdBins(const std::vector<double>& c, size_t levels) {
  const size_t k = c.size();
  if (k <= levels) return k;
  // Prefix sums: count, count * ln(count), bins with count > 0.
  std::vector<double> cum(k + 1, 0.0), cum_xlogx(k + 1, 0.0), cum_nonzero(k + 1, 0.0);
  for (size_t j = 0; j < k; ++j) {
    cum[j + 1] = cum[j] + c[j];
    cum_xlogx[j + 1] = cum_xlogx[j] + XLogX(c[j]);
    cum_nonzero[j + 1] = cum_nonzero[j] + (c[j] > 0 ? 1.0 : 0.0);
  }
  const double total = cum[k];
  size_t best = k;
  double best_kl = std::numeric_limits<double>::infinity();
  for (size_t i = levels; i <= k; ++i) {
    const double inside = cum[i];
    if (inside <= 0) continue;
    const double clipped = total - inside;
    const double p_last = c[i - 1] + clipped;
    double sum_plogp = cum_xlogx[i - 1] + XLogX(p_last);
    double cross = 0;  // sum_l (P mass of level l) * ln(S_l / n_l)
    bool finite = true;
    for (size_t l = 0; l < levels; ++l) {
      const size_t lo = l * i / levels, hi = (l + 1) * i / levels;
      const double s = cum[hi] - cum[lo];
      double nonzero = cum_nonzero[hi] - cum_nonzero[lo];
      double p_mass = s;
      if (hi == i) {  // the level holding P_{i-1}, which carries the clipped mass
        p_mass += clipped;
        if (c[i - 1] <= 0 && p_last > 0) nonzero += 1;
      }
      if (p_mass <= 0) continue;
      if (s <= 0) {
        finite = false;
        break;
      }
      cross += p_mass * std::log(s / nonzero);
    }
    if (!finite) continue;
    const double kl = (sum_plogp - cross) / total + std::log(inside / total);
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return best;
}

Range EntropyMethod::Choose(const Histogram& histogram, const RangeOptions& options) const {
  ValidateRangeOptions(options);
  if (histogram.empty()) return Range{};
  const bool one_sided = !options.symmetric && (histogram.min() >= 0 || histogram.max() <= 0);
  const size_t levels = static_cast<size_t>(one_sided ? options.levels : options.levels / 2);
  const Density d = AbsDensity(histogram, kMinBins, Zeros::kDrop);
  const double t = static_cast<double>(BestThresholdBins(d.counts, levels)) * d.width;
  if (options.symmetric) return SymmetricRange(histogram, t);
  const double clamped = std::min(t, static_cast<double>(MaxAbs(histogram)));
  return ClampedRange(histogram, -clamped, clamped);
}

}  // namespace ptq
