// The ymm int8 GEMM tiles shared by the AVX2 and AVX-VNNI kernels: up to 6 rows x 16 columns (1 x 64
// for one row). The including file defines PTQ_YMM_TARGET (its target attribute) and, before the
// include, `PTQ_YMM_TARGET inline __m256i YmmStep(__m256i acc, __m256i a, __m256i b)`: acc plus the
// 4-byte-group dot products of a and b. Everything here is in an anonymous namespace of that file.
#pragma once

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

namespace ptq {
namespace {


inline int32_t Load32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

PTQ_YMM_TARGET inline __m256i Load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// The terms of Store's epilogue for 8 whole columns from c, loaded once for all the tile's rows.
struct ColumnTerms {
  __m256i b_zero_point, col_adjust, bias;
  __m256 multiplier, float_bias;
};

PTQ_YMM_TARGET inline ColumnTerms LoadColumnTerms(const Int8Block& blk, int64_t c) {
  ColumnTerms t;
  t.b_zero_point = blk.any_b_zero_point ? Load8(blk.b_zero_point + c) : _mm256_setzero_si256();
  t.col_adjust = Load8(blk.col_adjust + c);
  t.bias = Load8(blk.bias + c);
  t.multiplier = blk.out != Int8Output::kInt32 ? _mm256_loadu_ps(blk.multiplier + c) : _mm256_setzero_ps();
  t.float_bias = blk.out == Int8Output::kFloat ? _mm256_loadu_ps(blk.float_bias + c) : _mm256_setzero_ps();
  return t;
}

// acc with the zero-point terms and the bias of row r (8 whole columns, column terms t).
PTQ_YMM_TARGET __attribute__((always_inline)) inline __m256i Corrected(const Int8Block& blk, __m256i acc, int64_t r,
                                                                       const ColumnTerms& t) {
  if (blk.any_b_zero_point) {
    acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(t.b_zero_point, _mm256_set1_epi32(blk.a_row_sum[r])));
  }
  const int32_t a_zp = blk.a_zero_point[r];
  if (a_zp != 0) acc = _mm256_sub_epi32(acc, _mm256_mullo_epi32(t.col_adjust, _mm256_set1_epi32(a_zp)));
  return _mm256_add_epi32(acc, t.bias);
}

// The requantized values of corrected accumulators, as int32 lanes within the 8-bit output type's range.
PTQ_YMM_TARGET __attribute__((always_inline)) inline __m256i Requantized(const Int8Block& blk, __m256i acc,
                                                                         const ColumnTerms& t) {
  __m256 v = _mm256_mul_ps(_mm256_cvtepi32_ps(acc), t.multiplier);
  v = _mm256_round_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  v = _mm256_max_ps(v, _mm256_set1_ps(blk.lo));  // NaN gives lo (the second operand): qmin
  v = _mm256_min_ps(v, _mm256_set1_ps(blk.hi));
  return _mm256_add_epi32(_mm256_cvtps_epi32(v), _mm256_set1_epi32(blk.y_zero_point));
}

// Store for 8 whole columns from c of row r, inline, with the column terms already loaded.
PTQ_YMM_TARGET __attribute__((always_inline)) inline void StoreWhole(const Int8Block& blk, __m256i acc, int64_t r,
                                                                    int64_t c, const ColumnTerms& t) {
  acc = Corrected(blk, acc, r, t);
  if (blk.out == Int8Output::kInt32) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(static_cast<int32_t*>(blk.c) + r * blk.ldc + c), acc);
    return;
  }
  if (blk.out == Int8Output::kFloat) {
    const __m256 v = _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), t.multiplier), t.float_bias);
    _mm256_storeu_ps(static_cast<float*>(blk.c) + r * blk.ldc + c, v);
    return;
  }
  const __m256i q = Requantized(blk, acc, t);
  // q is within the output type's range, so the saturating packs below are exact.
  const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
  const __m128i bytes = blk.out == Int8Output::kUint8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w);
  _mm_storel_epi64(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(blk.c) + r * blk.ldc + c), bytes);
}

// 16 whole 8-bit outputs from c of row r (two vectors, column terms t0 and t1) packed and stored together.
PTQ_YMM_TARGET __attribute__((always_inline)) inline void StoreBytes16(const Int8Block& blk, __m256i acc0, __m256i acc1,
                                                                      int64_t r, int64_t c, const ColumnTerms& t0,
                                                                      const ColumnTerms& t1) {
  const __m256i q0 = Requantized(blk, Corrected(blk, acc0, r, t0), t0);
  const __m256i q1 = Requantized(blk, Corrected(blk, acc1, r, t1), t1);
  // Per 128-bit lane, int16 [q0 0-3, q1 0-3 | q0 4-7, q1 4-7], then bytes with the same order twice per lane;
  // the dwords 0, 4, 1, 5 are the 16 bytes in order. Exact: every q is within the output type's range.
  const __m256i w = _mm256_packs_epi32(q0, q1);
  const __m256i bytes = blk.out == Int8Output::kUint8 ? _mm256_packus_epi16(w, w) : _mm256_packs_epi16(w, w);
  const __m256i ordered = _mm256_permutevar8x32_epi32(bytes, _mm256_setr_epi32(0, 4, 1, 5, 0, 4, 1, 5));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(static_cast<uint8_t*>(blk.c) + r * blk.ldc + c),
                   _mm256_castsi256_si128(ordered));
}

// The epilogue of Int8Block for the first `cols` (1..7) of the 8 columns from c of row r: the N edge.
PTQ_YMM_TARGET __attribute__((noinline)) void Store(const Int8Block& blk, __m256i acc, int64_t r, int64_t c,
                                                    int64_t cols) {
  const ColumnTerms t = LoadColumnTerms(blk, c);  // the column terms are padded to whole panels
  acc = Corrected(blk, acc, r, t);
  alignas(32) uint8_t lanes[32];
  size_t bytes_per_value = 4;
  if (blk.out == Int8Output::kInt32) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), acc);
  } else if (blk.out == Int8Output::kFloat) {
    _mm256_store_ps(reinterpret_cast<float*>(lanes),
                    _mm256_add_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc), t.multiplier), t.float_bias));
  } else {
    const __m256i q = Requantized(blk, acc, t);  // within the output type's range: the packs are exact
    const __m128i w = _mm_packs_epi32(_mm256_castsi256_si128(q), _mm256_extracti128_si256(q, 1));
    _mm_store_si128(reinterpret_cast<__m128i*>(lanes),
                    blk.out == Int8Output::kUint8 ? _mm_packus_epi16(w, w) : _mm_packs_epi16(w, w));
    bytes_per_value = 1;
  }
  std::memcpy(static_cast<uint8_t*>(blk.c) + (r * blk.ldc + c) * static_cast<int64_t>(bytes_per_value), lanes,
              static_cast<size_t>(cols) * bytes_per_value);
}

// The epilogue of a tile (acc[r][v]: row r0 + r, columns p0 * 16 + 8 v ...), each element as Int8Block says:
// whole vectors of 8 columns with their column terms loaded once, a partial one at the N edge through Store.
template <int kRows, int kVecs>
PTQ_YMM_TARGET __attribute__((noinline)) void StoreTile(const Int8Block& blk, const __m256i (&acc)[kRows][kVecs],
                                                        int64_t r0, int64_t p0) {
  const bool bytes = blk.out == Int8Output::kUint8 || blk.out == Int8Output::kInt8;
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    const int64_t c = p0 * 16 + 8 * v;
    const int64_t cols = std::min<int64_t>(blk.cols - c, 8);
    if (cols <= 0) break;
    if (bytes && v + 1 < kVecs && blk.cols - c >= 16) {  // a whole panel of 8-bit outputs: 16 bytes a row
      const ColumnTerms t0 = LoadColumnTerms(blk, c), t1 = LoadColumnTerms(blk, c + 8);
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) StoreBytes16(blk, acc[r][v], acc[r][v + 1], r0 + r, c, t0, t1);
      ++v;
      continue;
    }
    if (cols < 8) {
      for (int r = 0; r < kRows; ++r) Store(blk, acc[r][v], r0 + r, c, cols);
      continue;
    }
    const ColumnTerms terms = LoadColumnTerms(blk, c);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) StoreWhole(blk, acc[r][v], r0 + r, c, terms);
  }
}

// kRows rows from r0 times kPanels panels from p0; each panel is two ymm of 8 columns.
template <int kRows, int kPanels>
PTQ_YMM_TARGET void Tile(const Int8Block& blk, int64_t r0, int64_t p0) {
  constexpr int kVecs = 2 * kPanels;
  __m256i acc[kRows][kVecs];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm256_setzero_si256();
  }
  const uint8_t* a = blk.a + r0 * blk.a_row_bytes;
  const int64_t lda = blk.a_row_bytes;
  const int8_t* b = blk.b + p0 * blk.panel_bytes;
  const int64_t pb = blk.panel_bytes;
  for (int64_t s = 0; s < blk.k_steps; ++s) {
    __m256i bv[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      bv[v] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + (v / 2) * pb + 64 * s + 32 * (v % 2)));
    }
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m256i av = _mm256_set1_epi32(Load32(a + r * lda + 4 * s));
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = YmmStep(acc[r][v], av, bv[v]);
    }
  }
  alignas(32) __m256i out[kRows][kVecs];  // out of the registers once, for the epilogue out of line
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) out[r][v] = acc[r][v];
  }
  StoreTile<kRows, kVecs>(blk, out, r0, p0);
}

PTQ_YMM_TARGET void YmmBlock(const Int8Block& blk) {
  int64_t p = 0;
  if (blk.rows == 1) {
    for (; p + 4 <= blk.panels; p += 4) Tile<1, 4>(blk, 0, p);
  }
  for (; p < blk.panels; ++p) {
    int64_t r = 0;
    for (; r + 6 <= blk.rows; r += 6) Tile<6, 1>(blk, r, p);
    switch (blk.rows - r) {
      case 5: Tile<5, 1>(blk, r, p); break;
      case 4: Tile<4, 1>(blk, r, p); break;
      case 3: Tile<3, 1>(blk, r, p); break;
      case 2: Tile<2, 1>(blk, r, p); break;
      case 1: Tile<1, 1>(blk, r, p); break;
      default: break;
    }
  }
}

}  // namespace
}  // namespace ptq
