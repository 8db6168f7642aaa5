// The checks and helpers SampleReader and ChunkSamples share: data against a model input, NaN counts, row concatenation.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "runtime/graph.h"
#include "runtime/tensor.h"

namespace ptq {

// Whether the input's dimension 0 is free (so samples can be batched along it).
bool FreeBatch(const ValueInfo& v);

// Checks dtype, rank and fixed dims of `shape` (data for one input) against the model's declaration;
// throws a data error naming `what` and the input. `first_axis` 1 skips the sample axis (a rank-0 input
// then takes a 1-D array of samples); symbolic dims of axes >= 1 must agree across inputs (`syms`:
// dim name -> value and the input it was first seen on).
void CheckSampleShape(const ValueInfo& v, DataType dtype, const Shape& shape, size_t first_axis, const std::string& what,
                      std::map<std::string, std::pair<int64_t, std::string>>* syms);

// Adds the NaN and +-Inf values of a floating-point tensor to the counts (other types: nothing).
void CountNonFinite(const Tensor& t, int64_t* nan, int64_t* inf);

// Concatenates tensors along axis 0. REQUIRES: same dtype and rank >= 1; other dims checked by the caller.
Tensor ConcatRows(const std::vector<Tensor>& parts);

}  // namespace ptq
