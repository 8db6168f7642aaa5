// Transpose of a byte matrix (the NCHW reordering of an int8 convolution's GEMM output).
#pragma once

#include <cstdint>

namespace ptq {

// dst[c * rows + r] = src[r * cols + c] for r < rows, c < cols. 16 x 16 blocks go through SSE2
// unpack stages on x86-64, and 3 rows into rows of 3 (an RGB image's planes to positions) through SSSE3 byte
// shuffles on AVX2 CPUs; the borders (and other CPUs) use a plain loop. REQUIRES: no overlap.
void TransposeBytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst);
// The same with dst rows dst_stride bytes apart: dst[c * dst_stride + r] = src[r * cols + c].
void TransposeBytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst, int64_t dst_stride);
// Only the source columns [c0, c1) (the destination rows c0 to c1 - 1): threads can share the columns.
void TransposeBytesColumns(const uint8_t* src, int64_t rows, int64_t cols, int64_t c0, int64_t c1, uint8_t* dst,
                           int64_t dst_stride);

}  // namespace ptq
