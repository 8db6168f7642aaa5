// Shape helpers shared by kernels: numpy broadcasting, axis normalisation, strides.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

// numpy broadcasting of two shapes; throws an input error naming both shapes when incompatible.
Shape BroadcastShapes(const Shape& a, const Shape& b);

// Row-major strides (in elements) of a shape.
std::vector<int64_t> Strides(const Shape& shape);

// Strides of `in` viewed as `out` (in broadcast to out): 0 on broadcast axes, aligned right.
// REQUIRES: `in` broadcasts to `out`.
std::vector<int64_t> BroadcastStrides(const Shape& in, const Shape& out);

// Maps axis in [-rank, rank) to [0, rank); throws an input error otherwise.
int64_t NormalizeAxis(int64_t axis, int64_t rank);

// Product of shape[begin, end).
int64_t SizeOfRange(const Shape& shape, int64_t begin, int64_t end);

}  // namespace ptq
