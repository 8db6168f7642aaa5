// Parsing of Einsum equations into per-axis labels, with ellipses expanded against the input ranks.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

// Labels are the letters' character codes; the axes an ellipsis stands for get labels
// kEllipsisLabel + j, j counted so that ellipsis axes align to the right across inputs (numpy
// broadcasting).
constexpr int kEllipsisLabel = 256;

struct EinsumEquation {
  std::vector<std::vector<int>> inputs;  // one label per axis of each input (repeats = diagonal)
  std::vector<int> output;               // distinct labels, one per output axis
  std::map<int, int64_t> sizes;          // each label's size after broadcasting
};

// Parses `equation` ("ij,jk->ik", spaces ignored) for inputs of the given shapes. Without "->" the
// output is the ellipsis axes followed by the letters that occur once, in alphabetical (ASCII)
// order. Each occurrence of a label must have the label's size or 1 (broadcast). Throws an input
// error naming the attribute 'equation' when the equation is malformed or does not fit the shapes.
EinsumEquation ParseEinsumEquation(const std::string& equation, const std::vector<Shape>& shapes);

}  // namespace ptq
