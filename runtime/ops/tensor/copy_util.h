// Type-agnostic element movement for the data-movement ops: strided and transposed copies, fills.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/dtype.h"
#include "runtime/tensor.h"

namespace ptq {

// Copies a strided view of `src` into the contiguous, row-major `dst` of shape `out_shape`:
//   dst[i_0, ..., i_{n-1}] = src[offset + sum_k i_k * src_strides[k]]
// Offset and strides count elements of `elem_size` bytes; strides may be 0 (broadcast) or
// negative (reversed). Dimensions that are contiguous in `src` are merged, the innermost run is a
// memcpy when its stride is 1, and a 2-D transpose-like inner pair is copied in cache blocks.
// REQUIRES: every addressed source element lies inside `src`.
void CopyStrided(const void* src, int64_t offset, const std::vector<int64_t>& src_strides,
                 const Shape& out_shape, size_t elem_size, void* dst);

// dst = src transposed: output dimension k is input dimension perm[k].
// REQUIRES: perm is a permutation of [0, in_shape.size()).
void TransposeCopy(const void* src, const Shape& in_shape, const std::vector<int64_t>& perm,
                   size_t elem_size, void* dst);

// Writes the element at `value` (elem_size bytes) into dst[0, n).
void FillElements(void* dst, int64_t n, const void* value, size_t elem_size);

// Writes `value` converted to `dtype` (as static_cast would; float16/bfloat16 rounded to nearest
// even; bool is value != 0) into one element at `dst`. Throws an input error for other types.
void StoreScalar(DataType dtype, double value, void* dst);

// The tensor with its elements in the transposed order (a new buffer).
Tensor Transposed(const Tensor& in, const std::vector<int64_t>& perm);

}  // namespace ptq
