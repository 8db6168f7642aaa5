// The minmax range method: the observed range of the finite values, outliers included.
#include "calibrate/minmax_method.h"

namespace ptq {

// symmetric: t = max(|min|, |max|), range {-t, t}; asymmetric: {min, max}.
Range MinMaxMethod::Choose(const Histogram& histogram, const RangeOptions& options) const {
  ValidateRangeOptions(options);
  if (histogram.empty()) return Range{};
  if (options.symmetric) return SymmetricRange(histogram, MaxAbs(histogram));
  return Range{histogram.min(), histogram.max()};
}

}  // namespace ptq
