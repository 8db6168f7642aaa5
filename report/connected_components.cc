// ComponentBoxes: a flood fill from each unlabelled foreground pixel, in row-major order.
#include "report/connected_components.h"

#include <algorithm>

namespace ptq {

std::vector<Box> ComponentBoxes(const float* map, int64_t h, int64_t w, float threshold, int64_t min_size) {
  std::vector<Box> boxes;
  std::vector<char> seen(static_cast<size_t>(h * w), 0);
  std::vector<int64_t> stack;
  for (int64_t start = 0; start < h * w; ++start) {
    if (seen[static_cast<size_t>(start)] || !(map[start] > threshold)) continue;
    Box b{start % w, start / w, start % w + 1, start / w + 1};
    seen[static_cast<size_t>(start)] = 1;
    stack.assign(1, start);
    while (!stack.empty()) {
      const int64_t p = stack.back();
      stack.pop_back();
      const int64_t y = p / w, x = p % w;
      b.x0 = std::min(b.x0, x);
      b.y0 = std::min(b.y0, y);
      b.x1 = std::max(b.x1, x + 1);
      b.y1 = std::max(b.y1, y + 1);
      for (int64_t ny = std::max<int64_t>(0, y - 1); ny <= std::min(h - 1, y + 1); ++ny) {
        for (int64_t nx = std::max<int64_t>(0, x - 1); nx <= std::min(w - 1, x + 1); ++nx) {
          const int64_t q = ny * w + nx;
          if (seen[static_cast<size_t>(q)] || !(map[q] > threshold)) continue;
          seen[static_cast<size_t>(q)] = 1;
          stack.push_back(q);
        }
      }
    }
    if (b.x1 - b.x0 >= min_size && b.y1 - b.y0 >= min_size) boxes.push_back(b);
  }
  return boxes;
}

}  // namespace ptq
