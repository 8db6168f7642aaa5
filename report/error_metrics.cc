// ErrorMetrics: the streaming sums and the formulas derived from them.
#include "report/error_metrics.h"

#include <cmath>

namespace ptq {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

void ErrorMetrics::Add(const float* ref, const float* approx, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const double r = ref[i], x = approx[i], e = r - x;
    if (!std::isfinite(r)) {
      ++skipped_;
      continue;
    }
    if (!std::isfinite(x)) {
      if (nonfinite_++ == 0) first_nonfinite_ = seen_ + i;
      continue;
    }
    const double a = std::fabs(e);
    max_abs_ = a > max_abs_ ? a : max_abs_;
    sum_abs_ += a;
    sum_sq_err_ += e * e;
    sum_ref_sq_ += r * r;
    sum_x_sq_ += x * x;
    dot_ += r * x;
    ++count_;
  }
  seen_ += n;
}

double ErrorMetrics::max_abs_error() const { return nonfinite_ ? kInf : max_abs_; }

double ErrorMetrics::mean_abs_error() const {
  if (nonfinite_) return kInf;
  return count_ ? sum_abs_ / static_cast<double>(count_) : 0.0;
}

// rmse = sqrt(sum (r - x)^2 / n)
double ErrorMetrics::rmse() const {
  if (nonfinite_) return kInf;
  return count_ ? std::sqrt(sum_sq_err_ / static_cast<double>(count_)) : 0.0;
}

// SQNR = 10 log10(sum r^2 / sum (r - x)^2)
double ErrorMetrics::sqnr_db() const {
  if (nonfinite_) return -kInf;
  if (sum_sq_err_ == 0) return kInf;
  if (sum_ref_sq_ == 0) return -kInf;
  return 10.0 * std::log10(sum_ref_sq_ / sum_sq_err_);
}

// cosine = <r, x> / (|r| |x|)
double ErrorMetrics::cosine() const {
  if (nonfinite_) return std::numeric_limits<double>::quiet_NaN();
  if (sum_ref_sq_ == 0 && sum_x_sq_ == 0) return 1.0;
  if (sum_ref_sq_ == 0 || sum_x_sq_ == 0) return 0.0;
  return dot_ / std::sqrt(sum_ref_sq_ * sum_x_sq_);
}

}  // namespace ptq
