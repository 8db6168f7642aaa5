// BoxIou and MatchBoxes (scripts/zoo/metrics.py's iou and match, to the same tie order).
#include "report/box_match.h"

#include <algorithm>
#include <tuple>

namespace ptq {

double BoxIou(const Box& a, const Box& b) {
  const int64_t ix = std::max<int64_t>(0, std::min(a.x1, b.x1) - std::max(a.x0, b.x0));
  const int64_t iy = std::max<int64_t>(0, std::min(a.y1, b.y1) - std::max(a.y0, b.y0));
  const int64_t inter = ix * iy;
  const int64_t uni = (a.x1 - a.x0) * (a.y1 - a.y0) + (b.x1 - b.x0) * (b.y1 - b.y0) - inter;
  return uni > 0 ? static_cast<double>(inter) / static_cast<double>(uni) : 0.0;
}

int64_t MatchBoxes(const std::vector<Box>& reference, const std::vector<Box>& detected, double min_iou) {
  std::vector<std::tuple<double, size_t, size_t>> pairs;  // only pairs that can match: IoU >= min_iou > 0
  for (size_t i = 0; i < reference.size(); ++i) {
    for (size_t j = 0; j < detected.size(); ++j) {
      const double v = BoxIou(reference[i], detected[j]);
      if (v >= min_iou) pairs.emplace_back(v, i, j);
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) { return a > b; });
  std::vector<char> used_i(reference.size(), 0), used_j(detected.size(), 0);
  int64_t matched = 0;
  for (const auto& [v, i, j] : pairs) {
    if (used_i[i] || used_j[j]) continue;
    used_i[i] = used_j[j] = 1;
    ++matched;
  }
  return matched;
}

}  // namespace ptq
