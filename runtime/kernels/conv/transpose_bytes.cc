// Byte-matrix transpose: SSE2 16 x 16 blocks (4 unpack stages), plain loops for the borders.
#include "runtime/kernels/conv/transpose_bytes.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace ptq {
namespace {

void TransposePlain(const uint8_t* src, int64_t ld, int64_t cols, int64_t r0, int64_t r1, int64_t c0, int64_t c1,
                    uint8_t* dst) {
  for (int64_t c = c0; c < c1; ++c) {
    for (int64_t r = r0; r < r1; ++r) dst[c * ld + r] = src[r * cols + c];
  }
}

#if defined(__x86_64__)
// The 16 x 16 block at (r0, c0).
void TransposeBlock16(const uint8_t* src, int64_t ld, int64_t cols, int64_t r0, int64_t c0, uint8_t* dst) {
  __m128i a[16], b[16];
  for (int i = 0; i < 16; ++i) a[i] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + (r0 + i) * cols + c0));
  // Bytes of row pairs: b[2i] holds columns 0-7 of rows 2i, 2i+1 interleaved, b[2i+1] columns 8-15.
  for (int i = 0; i < 8; ++i) {
    b[2 * i] = _mm_unpacklo_epi8(a[2 * i], a[2 * i + 1]);
    b[2 * i + 1] = _mm_unpackhi_epi8(a[2 * i], a[2 * i + 1]);
  }
  // 16-bit pairs of row quads q: a[4q + j] holds columns 4j .. 4j+3 of rows 4q .. 4q+3.
  for (int q = 0; q < 4; ++q) {
    a[4 * q + 0] = _mm_unpacklo_epi16(b[4 * q + 0], b[4 * q + 2]);
    a[4 * q + 1] = _mm_unpackhi_epi16(b[4 * q + 0], b[4 * q + 2]);
    a[4 * q + 2] = _mm_unpacklo_epi16(b[4 * q + 1], b[4 * q + 3]);
    a[4 * q + 3] = _mm_unpackhi_epi16(b[4 * q + 1], b[4 * q + 3]);
  }
  // 32-bit pairs of row octets h: b[8h + k] holds columns 2k, 2k+1 of rows 8h .. 8h+7.
  for (int h = 0; h < 2; ++h) {
    for (int j = 0; j < 4; ++j) {
      b[8 * h + 2 * j] = _mm_unpacklo_epi32(a[8 * h + j], a[8 * h + 4 + j]);
      b[8 * h + 2 * j + 1] = _mm_unpackhi_epi32(a[8 * h + j], a[8 * h + 4 + j]);
    }
  }
  // 64-bit halves: column 2k is the low halves of b[k] (rows 0-7) and b[8 + k] (rows 8-15).
  for (int k = 0; k < 8; ++k) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (c0 + 2 * k) * ld + r0), _mm_unpacklo_epi64(b[k], b[8 + k]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + (c0 + 2 * k + 1) * ld + r0),
                     _mm_unpackhi_epi64(b[k], b[8 + k]));
  }
}
#endif

}  // namespace

void TransposeBytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst) {
  TransposeBytes(src, rows, cols, dst, rows);
}

void TransposeBytes(const uint8_t* src, int64_t rows, int64_t cols, uint8_t* dst, int64_t dst_stride) {
  TransposeBytesColumns(src, rows, cols, 0, cols, dst, dst_stride);
}

void TransposeBytesColumns(const uint8_t* src, int64_t rows, int64_t cols, int64_t c0, int64_t c1, uint8_t* dst,
                           int64_t dst_stride) {
  int64_t r16 = 0, c16 = c0;
#if defined(__x86_64__)
  r16 = rows / 16 * 16;
  c16 = c0 + (c1 - c0) / 16 * 16;
  for (int64_t r = 0; r < r16; r += 16) {
    for (int64_t c = c0; c < c16; c += 16) TransposeBlock16(src, dst_stride, cols, r, c, dst);
  }
#endif
  TransposePlain(src, dst_stride, cols, 0, r16, c16, c1, dst);   // right border of the blocked rows
  TransposePlain(src, dst_stride, cols, r16, rows, c0, c1, dst);  // bottom rows, the columns
}

}  // namespace ptq
