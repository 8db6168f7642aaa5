// Byte-matrix transpose: SSE2 16 x 16 blocks (4 unpack stages), three rows (an RGB image's planes to
// positions) by SSSE3 byte shuffles, plain loops for the borders.
#include "runtime/kernels/conv/transpose_bytes.h"

#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
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

// Three rows, the columns [c0, c1) in blocks of 16 (to dst with ld 3: column c at dst + 3 c); returns the first
// column not done. Byte j of the 48 a block makes is row j % 3, column j / 3: each 16-byte part takes those bytes
// of the three rows by pshufb (an index with the top bit set gives a zero) and ors them.
__attribute__((target("ssse3"))) int64_t ThreeRows(const uint8_t* src, int64_t cols, int64_t c0, int64_t c1,
                                                    uint8_t* dst) {
  alignas(16) static const int8_t kPick[3][3][16] = {  // [part][row][lane]
      {{0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1, 5},
       {-1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1, -1},
       {-1, -1, 0, -1, -1, 1, -1, -1, 2, -1, -1, 3, -1, -1, 4, -1}},
      {{-1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10, -1},
       {5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1, 10},
       {-1, 5, -1, -1, 6, -1, -1, 7, -1, -1, 8, -1, -1, 9, -1, -1}},
      {{-1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1, -1},
       {-1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15, -1},
       {10, -1, -1, 11, -1, -1, 12, -1, -1, 13, -1, -1, 14, -1, -1, 15}}};
  int64_t c = c0;
  for (; c + 16 <= c1; c += 16) {
    __m128i row[3];
    for (int r = 0; r < 3; ++r) row[r] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + r * cols + c));
    for (int part = 0; part < 3; ++part) {
      __m128i v = _mm_setzero_si128();
      for (int r = 0; r < 3; ++r) {
        v = _mm_or_si128(v, _mm_shuffle_epi8(row[r], _mm_load_si128(reinterpret_cast<const __m128i*>(kPick[part][r]))));
      }
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + 3 * c + 16 * part), v);
    }
  }
  return c;
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
  if (rows == 3 && dst_stride == 3 && GetCpuFeatures().avx2_fma) {  // AVX2 CPUs have SSSE3; PTQ_CPU applies
    TransposePlain(src, dst_stride, cols, 0, rows, ThreeRows(src, cols, c0, c1, dst), c1, dst);
    return;
  }
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
