// The mse range method: the range minimising the expected squared quantization error under the histogram.
#pragma once

#include "calibrate/range_method.h"

namespace ptq {

// The histogram is read as a piecewise-uniform density (bins split to at least 2048). For a candidate
// range [lo, hi] the expected squared error of quantizing every value is
//   E(lo, hi) = sum_{x < lo} (x - lo)^2 + sum_{x > hi} (x - hi)^2     (clipping)
//             + N_in * step^2 / 12                                     (rounding, uniform in a step)
// where N_in counts the values inside and step is the quantization step:
//   symmetric, lo = -t, hi = t, on |x|:  step = t / floor((levels - 1) / 2)   (int8: t / 127);
//   asymmetric: step = (max(hi, 0) - min(lo, 0)) / (levels - 1), since the range is widened to hold 0.
// With prefix sums of the bin moments M0 = c, M1 = c * center, M2 = c * (center^2 + width^2 / 12)
// the clipping sum beyond a bin boundary b is M2 - 2 b M1 + b^2 M0, so each candidate costs O(1).
// Candidates: every bin boundary, plus the observed extremes (which clip nothing).
//   symmetric: t over the boundaries of the |x| density up to max|x|;
//   asymmetric: every pair of a lo at min or a boundary <= 0 and a hi at max or a boundary >= 0.
// The smallest error wins (the first candidate on ties, smaller t and wider lo first).
class MseMethod : public RangeMethod {
 public:
  std::string name() const override { return "mse"; }
  Range Choose(const Histogram& histogram, const RangeOptions& options) const override;
};

}  // namespace ptq
