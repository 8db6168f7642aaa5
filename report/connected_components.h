// 8-connected components of a thresholded map and their bounding boxes (the DB text detector's regions).
#pragma once

#include <cstdint>
#include <vector>

namespace ptq {

// An axis-aligned box in pixels; x1 and y1 are exclusive (width x1 - x0).
struct Box {
  int64_t x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// The bounding boxes of the 8-connected components of the pixels with map[y * w + x] > threshold (compared
// in float, as NumPy compares a float32 map with a Python float) that are at least min_size pixels wide
// and high; in the order of each component's first pixel in row-major order (scipy.ndimage.label's
// numbering).
std::vector<Box> ComponentBoxes(const float* map, int64_t h, int64_t w, float threshold, int64_t min_size);

}  // namespace ptq
