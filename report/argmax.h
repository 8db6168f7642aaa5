// Argmax over strided float values, with NumPy's rule, so that task metrics agree with scripts/zoo/metrics.py.
#pragma once

#include <cmath>
#include <cstdint>

namespace ptq {

// The index of the largest of v[0], v[stride], ..., v[(n - 1) * stride]: the first one on ties, the first
// NaN if there is one (numpy.argmax). REQUIRES: n > 0.
inline int64_t Argmax(const float* v, int64_t n, int64_t stride = 1) {
  int64_t best = 0;
  float top = v[0];
  if (std::isnan(top)) return 0;
  for (int64_t i = 1; i < n; ++i) {
    const float x = v[i * stride];
    if (std::isnan(x)) return i;
    if (x > top) {
      top = x;
      best = i;
    }
  }
  return best;
}

}  // namespace ptq
