// The entropy range method: the threshold whose 8-bit quantization loses the least information (KL divergence).
#pragma once

#include <vector>

#include "calibrate/range_method.h"

namespace ptq {

// The TensorRT-style search ("8-bit Inference with TensorRT", Migacz 2017), on the density of |x|
// split into K >= 2048 bins c_0..c_{K-1} (AbsDensity), with n quantization levels on that side:
// n = levels / 2 (128 for 8 bits) when the range has two sides, n = levels for asymmetric targets
// whose values are all >= 0 (or all <= 0). For every candidate threshold T_i = i * width,
// i = n, n+1, ..., K (every bin boundary from n bins up to the full range):
//   P = c_0 .. c_{i-1}, with the clipped mass O_i = sum_{j>=i} c_j added to P_{i-1};
//   Q = c_0 .. c_{i-1} (without O_i) merged into n levels, level l covering bins
//       [floor(l i / n), floor((l+1) i / n)), and expanded back: every bin of level l where P > 0
//       gets S_l / n_l (S_l the level's sum, n_l its count of bins with P > 0), the others 0;
//   KL(P || Q) of the normalised P and Q, computed per level from prefix sums in O(n):
//       KL = (sum_j P_j ln P_j - sum_l (sum_{j in l} P_j) ln(S_l / n_l)) / C + ln(C_in / C),
//       C = sum_j c_j, C_in = sum_{j<i} c_j;
//   candidates where some P_j > 0 meets Q_j = 0 have infinite KL and are skipped (i = K never is).
// The chosen T minimises KL (the smallest such T on ties), clamped to max|x|. The range is {-T, T}
// for symmetric targets, and {max(min, -T), min(max, T)} otherwise (ONNX Runtime's convention).
class EntropyMethod : public RangeMethod {
 public:
  std::string name() const override { return "entropy"; }
  Range Choose(const Histogram& histogram, const RangeOptions& options) const override;

  // The i in [levels, c.size()] minimising KL as above; c.size() when c has at most `levels` bins.
  static size_t BestThresholdBins(const std::vector<double>& c, size_t levels);
};

}  // namespace ptq
