// CtcGreedyDecode and SequenceEditDistance (two-row dynamic programme).
#include "report/ctc_decode.h"

#include <algorithm>
#include <utility>

#include "report/argmax.h"

namespace ptq {

std::vector<int64_t> CtcGreedyDecode(const float* scores, int64_t steps, int64_t classes, int64_t step_stride,
                                     int64_t class_stride, int64_t blank) {
  std::vector<int64_t> out;
  int64_t prev = -1;
  for (int64_t t = 0; t < steps; ++t) {
    const int64_t c = Argmax(scores + t * step_stride, classes, class_stride);
    if (c != prev && c != blank) out.push_back(c);
    prev = c;
  }
  return out;
}

int64_t SequenceEditDistance(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  std::vector<int64_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int64_t>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int64_t>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace ptq
