// Streaming error statistics of a quantized tensor against its float reference: SQNR, cosine, errors,
// and the int8 values that are not finite where the float ones are.
#pragma once

#include <cstdint>
#include <limits>

namespace ptq {

// Accumulates pairs (reference r, approximation x) over any number of calls, in double. A pair whose r
// is not finite is not an error of quantization: it is skipped (and counted). A pair with a finite r
// and a NaN or infinite x is an infinite error: it is counted with the index of the first one, and
// every metric then says so (SQNR -inf, max error, mean error and RMSE +inf, cosine NaN).
class ErrorMetrics {
 public:
  void Add(const float* ref, const float* approx, int64_t n);

  int64_t count() const { return count_; }                   // finite pairs measured
  int64_t nonfinite() const { return nonfinite_; }           // finite r, non-finite x
  int64_t first_nonfinite() const { return first_nonfinite_; }  // its index over all Add calls; -1 if none
  int64_t skipped() const { return skipped_; }               // non-finite r
  double max_abs_error() const;
  double mean_abs_error() const;
  double rmse() const;
  // sum r^2 / sum (r - x)^2 in dB; +infinity when there is no error, -infinity when the reference is 0
  // (and there is an error) or when some x is not finite.
  double sqnr_db() const;
  // <r, x> / (|r| |x|); 1 when both are zero, 0 when only one is; NaN when some x is not finite.
  double cosine() const;

 private:
  int64_t count_ = 0, nonfinite_ = 0, first_nonfinite_ = -1, skipped_ = 0, seen_ = 0;
  double max_abs_ = 0, sum_abs_ = 0, sum_sq_err_ = 0, sum_ref_sq_ = 0, sum_x_sq_ = 0, dot_ = 0;
};

}  // namespace ptq
