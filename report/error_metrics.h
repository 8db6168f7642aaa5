// Streaming error statistics of a quantized tensor against its float reference: SQNR, cosine, errors.
#pragma once

#include <cstdint>
#include <limits>

namespace ptq {

// Accumulates pairs (reference r, approximation x) over any number of calls, in double.
class ErrorMetrics {
 public:
  void Add(const float* ref, const float* approx, int64_t n);

  int64_t count() const { return count_; }
  double max_abs_error() const { return max_abs_; }
  double mean_abs_error() const { return count_ ? sum_abs_ / static_cast<double>(count_) : 0.0; }
  double rmse() const;
  // sum r^2 / sum (r - x)^2 in dB; +infinity when there is no error, 0 - ... when the reference is 0.
  double sqnr_db() const;
  // <r, x> / (|r| |x|); 1 when both are zero, 0 when only one is.
  double cosine() const;

 private:
  int64_t count_ = 0;
  double max_abs_ = 0, sum_abs_ = 0, sum_sq_err_ = 0, sum_ref_sq_ = 0, sum_x_sq_ = 0, dot_ = 0;
};

}  // namespace ptq
