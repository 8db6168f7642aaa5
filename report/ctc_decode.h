// Greedy CTC decoding of class scores, and the edit distance between two decoded sequences.
#pragma once

#include <cstdint>
#include <vector>

namespace ptq {

// Greedy (best path) decoding of one sample: the argmax class of each of `steps` time steps, runs of the
// same class collapsed to one, then `blank` dropped. Step t's score of class c is
// scores[t * step_stride + c * class_stride]. E.g. per-step argmax 0 3 3 0 3 5 5 0 -> 3 3 5 (blank 0).
std::vector<int64_t> CtcGreedyDecode(const float* scores, int64_t steps, int64_t classes, int64_t step_stride,
                                     int64_t class_stride, int64_t blank);

// Levenshtein distance: the fewest insertions, deletions and substitutions that turn a into b.
int64_t SequenceEditDistance(const std::vector<int64_t>& a, const std::vector<int64_t>& b);

}  // namespace ptq
