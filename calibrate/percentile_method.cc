// The percentile range method: keep a given share of the values inside the range, clip the tails.
#include "calibrate/percentile_method.h"

namespace ptq {

// symmetric: t = Quantile_|x|(q); asymmetric: {Quantile_x((1 - q) / 2), Quantile_x((1 + q) / 2)}.
Range PercentileMethod::Choose(const Histogram& histogram, const RangeOptions& options) const {
  ValidateRangeOptions(options);
  if (histogram.empty()) return Range{};
  const double q = options.percentile / 100.0;
  if (options.symmetric) {
    if (q >= 1.0) return SymmetricRange(histogram, MaxAbs(histogram));
    return SymmetricRange(histogram, AbsDensity(histogram, 1).Quantile(q));
  }
  if (q >= 1.0) return Range{histogram.min(), histogram.max()};
  const Density d = SignedDensity(histogram, 1);
  return ClampedRange(histogram, d.Quantile((1.0 - q) / 2.0), d.Quantile((1.0 + q) / 2.0));
}

}  // namespace ptq
