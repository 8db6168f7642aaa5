// Transpose of a row-major matrix of 1-, 2-, 4- or 8-byte elements, in cache-sized tiles.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ptq {

// dst[c * dst_stride + r] = src[r * cols + c] for r < rows, c < cols, elements of `elem` bytes
// (1 byte: TransposeBytes; others: 32 x 32 tiles, or up to 8 rows a column at a time). REQUIRES: no overlap,
// dst_stride >= rows.
void Transpose2D(const void* src, int64_t rows, int64_t cols, size_t elem, void* dst, int64_t dst_stride);

// Transpose2D of columns [c0, c1) of src alone: dst[c * dst_stride + r] = src[r * cols + c] for r < rows and
// c0 <= c < c1, so that threads can share one matrix by its columns. REQUIRES: as Transpose2D, elem 1, 2, 4 or 8.
void Transpose2DColumns(const void* src, int64_t rows, int64_t cols, size_t elem, int64_t c0, int64_t c1, void* dst,
                        int64_t dst_stride);

// When perm swaps two contiguous blocks of axes after a prefix it keeps (perm = [0..p-1, s..r-1,
// p..s-1]), the copy is outer = prod(dims[0, p)) transposes of [prod(dims[p, s)), prod(dims[s, r))]
// matrices: returns true and fills those three sizes. Covers NCHW <-> NHWC (perms 0 2 3 1, 0 3 1 2).
bool AsBatchedTranspose(const int64_t* dims, const int64_t* perm, size_t rank, int64_t* outer, int64_t* rows,
                        int64_t* cols);

}  // namespace ptq
