// The mse range method: the range minimising the expected squared quantization error under the histogram.
#include "calibrate/mse_method.h"

#include <cmath>
#include <limits>
#include <vector>

namespace ptq {
namespace {

constexpr int kMinBins = 2048;

// Prefix sums of the bin moments of a density: m0[i], m1[i], m2[i] over bins [0, i).
struct Moments {
  std::vector<double> m0, m1, m2;
  explicit Moments(const Density& d) : m0(d.counts.size() + 1), m1(d.counts.size() + 1), m2(d.counts.size() + 1) {
    const double w = d.width;
    for (size_t i = 0; i < d.counts.size(); ++i) {
      const double c = d.counts[i], center = d.origin + (static_cast<double>(i) + 0.5) * w;
      m0[i + 1] = m0[i] + c;
      m1[i + 1] = m1[i] + c * center;
      m2[i + 1] = m2[i] + c * (center * center + w * w / 12.0);
    }
  }
  // sum over bins [a, b) of (x - v)^2 = M2 - 2 v M1 + v^2 M0.
  double SquaredDistance(size_t a, size_t b, double v) const {
    return (m2[b] - m2[a]) - 2.0 * v * (m1[b] - m1[a]) + v * v * (m0[b] - m0[a]);
  }
};

// t minimising sum_{|x| > t} (|x| - t)^2 + N_{|x| <= t} (t / steps)^2 / 12 over the boundaries of d.
double SymmetricThreshold(const Density& d, double max_abs, double steps) {
  const Moments m(d);
  const size_t k = d.counts.size();
  double best_t = max_abs;
  double best = m.m0[k] * std::pow(max_abs / steps, 2) / 12.0;  // t = max|x| clips nothing
  for (size_t i = 1; i < k; ++i) {
    const double t = static_cast<double>(i) * d.width;
    if (t >= max_abs) break;
    const double err = m.SquaredDistance(i, k, t) + m.m0[i] * std::pow(t / steps, 2) / 12.0;
    if (err < best) {
      best = err;
      best_t = t;
    }
  }
  return best_t;
}

// lo, hi minimising clipping below lo and above hi plus N_in * step^2 / 12, step over [min(lo,0), max(hi,0)].
Range AsymmetricRange(const Histogram& h, double steps) {
  const Density d = SignedDensity(h, kMinBins / 2, Zeros::kDrop);  // O(K^2) pairs: keep K near num_bins
  const Moments m(d);
  const size_t k = d.counts.size();
  // Candidates as (value, bin boundary index): lo clips bins [0, a), hi clips bins [b, k).
  std::vector<std::pair<double, size_t>> los = {{h.min(), 0}}, his = {{h.max(), k}};
  for (size_t i = 1; i < k; ++i) {
    const double v = d.origin + static_cast<double>(i) * d.width;
    if (v <= 0 && v > h.min()) los.push_back({v, i});
    if (v >= 0 && v < h.max()) his.push_back({v, i});
  }
  double best = std::numeric_limits<double>::infinity();
  Range r{h.min(), h.max()};
  for (const auto& lo : los) {
    const double clip_lo = m.SquaredDistance(0, lo.second, lo.first);
    for (const auto& hi : his) {
      if (hi.second < lo.second) continue;
      const double step = (std::max(hi.first, 0.0) - std::min(lo.first, 0.0)) / steps;
      const double err = clip_lo + m.SquaredDistance(hi.second, k, hi.first) +
                         (m.m0[hi.second] - m.m0[lo.second]) * step * step / 12.0;
      if (err < best) {
        best = err;
        r = Range{static_cast<float>(lo.first), static_cast<float>(hi.first)};
      }
    }
  }
  return ClampedRange(h, r.min, r.max);
}

}  // namespace

Range MseMethod::Choose(const Histogram& histogram, const RangeOptions& options) const {
  ValidateRangeOptions(options);
  if (histogram.empty()) return Range{};
  if (options.symmetric) {
    const double steps = static_cast<double>((options.levels - 1) / 2);
    const double max_abs = MaxAbs(histogram);
    return SymmetricRange(histogram, SymmetricThreshold(AbsDensity(histogram, kMinBins, Zeros::kDrop), max_abs, steps));
  }
  return AsymmetricRange(histogram, static_cast<double>(options.levels - 1));
}

}  // namespace ptq
