// The percentile range method: keep a given share of the values inside the range, clip the tails.
#pragma once

#include "calibrate/range_method.h"

namespace ptq {

// With p = options.percentile (in %) and q = p / 100:
//   symmetric:  t = the q-quantile of |x|, range {-t, t};
//   asymmetric: range {the (1-q)/2-quantile of x, the (1+q)/2-quantile of x}, i.e. the clipped share
//               1 - q is split evenly between the two tails (as ONNX Runtime does).
// Quantiles are interpolated linearly inside a bin (values spread uniformly in a bin) and clamped to
// the observed min/max, so p = 100 gives the minmax range.
class PercentileMethod : public RangeMethod {
 public:
  std::string name() const override { return "percentile"; }
  Range Choose(const Histogram& histogram, const RangeOptions& options) const override;
};

}  // namespace ptq
