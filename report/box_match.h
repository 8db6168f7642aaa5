// Intersection over union of boxes and the one-to-one greedy matching of detections to reference boxes.
#pragma once

#include <cstdint>
#include <vector>

#include "report/connected_components.h"

namespace ptq {

// area(a ∩ b) / area(a ∪ b); 0 when the union is empty.
double BoxIou(const Box& a, const Box& b);

// How many pairs (reference i, detection j) the greedy one-to-one matching makes: pairs in order of IoU,
// highest first (ties: higher i, then higher j first, as Python's sorted(reverse=True) of (iou, i, j)),
// each taken when neither box is taken yet and its IoU >= min_iou. REQUIRES: min_iou > 0.
int64_t MatchBoxes(const std::vector<Box>& reference, const std::vector<Box>& detected, double min_iou);

}  // namespace ptq
