// Direct DFT evaluation with a twiddle table.
#include "runtime/ops/signal/dft_math.h"

#include <algorithm>
#include <cmath>

namespace ptq {

void DiscreteFourier(const std::vector<std::complex<double>>& x, int64_t len, int64_t bins, bool inverse,
                     std::vector<std::complex<double>>* y) {
  const double pi = 3.14159265358979323846;
  const double sign = inverse ? 1.0 : -1.0;
  std::vector<std::complex<double>> twiddle(static_cast<size_t>(len));
  for (int64_t m = 0; m < len; ++m) {
    const double a = sign * 2 * pi * static_cast<double>(m) / static_cast<double>(len);
    twiddle[static_cast<size_t>(m)] = {std::cos(a), std::sin(a)};
  }
  const int64_t n = std::min<int64_t>(len, static_cast<int64_t>(x.size()));
  y->assign(static_cast<size_t>(bins), {0.0, 0.0});
  for (int64_t k = 0; k < bins; ++k) {
    std::complex<double> acc = 0;
    int64_t m = 0;  // k * j mod len, advanced by k each step
    for (int64_t j = 0; j < n; ++j) {
      acc += x[static_cast<size_t>(j)] * twiddle[static_cast<size_t>(m)];
      m += k;
      if (m >= len) m -= len;
    }
    (*y)[static_cast<size_t>(k)] = inverse ? acc / static_cast<double>(len) : acc;
  }
}

}  // namespace ptq
