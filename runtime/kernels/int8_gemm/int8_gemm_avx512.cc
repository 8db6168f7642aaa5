// AVX-512 VNNI int8 GEMM block kernel: vpdpbusd tiles of up to 6 rows x 64 columns (1 x 128 for one row), rows
// dense or by taps, with the zero-point corrections and the requantization done on the accumulators before the store.
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

// GCC 12 reports the deliberately undefined pass-through operand of its own AVX-512 intrinsics
// (_mm512_undefined_ps) as maybe uninitialised once they are inlined here; it is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PTQ_VNNI512 __attribute__((target("avx512f,avx512vl,avx512vnni")))

namespace ptq {
namespace {

PTQ_VNNI512 inline __mmask16 FirstLanes(int64_t n) {
  return static_cast<__mmask16>(n >= 16 ? 0xFFFFu : (1u << std::max<int64_t>(n, 0)) - 1u);
}

PTQ_VNNI512 inline int32_t Load32(const uint8_t* p) {
  int32_t v;
  std::memcpy(&v, p, sizeof(v));
  return v;
}

// The epilogue of 16 columns of one row: the zero-point terms, the bias and the output's operations
// (int8_gemm.h). `bias` has A's zero-point term folded in when the tile's rows share their zero point
// (shared_zp; the int32 sums wrap alike in any order); adjust holds the columns' col_adjust. 8-bit values are
// clamped before one rounding conversion (the bounds are integers, so that is the clamp of the rounded value; NaN
// gives lo either way), narrowed in a register and stored whole but for the last columns.
template <Int8Output kOut, bool kBZeroPoints>
PTQ_VNNI512 inline __attribute__((always_inline)) void Store(const Int8Block& blk, __m512i a, int64_t row, int64_t c,
                                                             __mmask16 mask, __m512i adjust, __m512i bias,
                                                             bool shared_zp) {
  if (kBZeroPoints) {
    const __m512i b_zp = _mm512_loadu_si512(blk.b_zero_point + c);
    a = _mm512_sub_epi32(a, _mm512_mullo_epi32(b_zp, _mm512_set1_epi32(blk.a_row_sum[row])));
  }
  if (!shared_zp && blk.a_zero_point[row] != 0) {
    a = _mm512_sub_epi32(a, _mm512_mullo_epi32(adjust, _mm512_set1_epi32(blk.a_zero_point[row])));
  }
  a = _mm512_add_epi32(a, bias);
  if (kOut == Int8Output::kInt32) {
    _mm512_mask_storeu_epi32(static_cast<int32_t*>(blk.c) + row * blk.ldc + c, mask, a);
    return;
  }
  __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(a), _mm512_loadu_ps(blk.multiplier + c));
  if (kOut == Int8Output::kFloat) {  // a multiply, then an add (no FMA)
    x = _mm512_add_ps(x, _mm512_loadu_ps(blk.float_bias + c));
    _mm512_mask_storeu_ps(static_cast<float*>(blk.c) + row * blk.ldc + c, mask, x);
    return;
  }
  x = _mm512_min_ps(_mm512_max_ps(x, _mm512_set1_ps(blk.lo)), _mm512_set1_ps(blk.hi));
  const __m512i rounded = _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m512i q = _mm512_add_epi32(rounded, _mm512_set1_epi32(blk.y_zero_point));
  uint8_t* out = static_cast<uint8_t*>(blk.c) + row * blk.ldc + c;
  if (mask == 0xFFFF) {  // q is within the output type's range: its low bytes
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(q));
  } else {
    _mm512_mask_cvtepi32_storeu_epi8(out, mask, q);
  }
}

// The epilogue of a tile whose sums are in `sums`: each panel's column terms once for the tile's rows.
template <int kRows, int kVecs, Int8Output kOut, bool kBZeroPoints>
PTQ_VNNI512 void StoreTileAs(const Int8Block& blk, const int32_t (&sums)[kRows][kVecs][16], int64_t r0, int64_t p0) {
  const int32_t a_zp = blk.a_zero_point[r0];
  bool shared_zp = true;
#pragma GCC unroll 8
  for (int r = 1; r < kRows; ++r) shared_zp = shared_zp && blk.a_zero_point[r0 + r] == a_zp;
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    const int64_t c = (p0 + v) * 16;
    const __mmask16 mask = FirstLanes(blk.cols - c);
    const __m512i adjust = _mm512_loadu_si512(blk.col_adjust + c);
    __m512i bias = _mm512_loadu_si512(blk.bias + c);
    if (shared_zp && a_zp != 0) bias = _mm512_sub_epi32(bias, _mm512_mullo_epi32(adjust, _mm512_set1_epi32(a_zp)));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      Store<kOut, kBZeroPoints>(blk, _mm512_load_si512(sums[r][v]), r0 + r, c, mask, adjust, bias, shared_zp);
    }
  }
}

// StoreTileAs for the block's output type and B zero points, out of line.
template <int kRows, int kVecs>
PTQ_VNNI512 __attribute__((noinline)) void StoreTile(const Int8Block& blk, const int32_t (&sums)[kRows][kVecs][16],
                                                     int64_t r0, int64_t p0) {
  const bool z = blk.any_b_zero_point;
  switch (blk.out) {
    case Int8Output::kInt32:
      return z ? StoreTileAs<kRows, kVecs, Int8Output::kInt32, true>(blk, sums, r0, p0)
               : StoreTileAs<kRows, kVecs, Int8Output::kInt32, false>(blk, sums, r0, p0);
    case Int8Output::kFloat:
      return z ? StoreTileAs<kRows, kVecs, Int8Output::kFloat, true>(blk, sums, r0, p0)
               : StoreTileAs<kRows, kVecs, Int8Output::kFloat, false>(blk, sums, r0, p0);
    default:  // kUint8, kInt8: the clamp bounds and zero point say which
      return z ? StoreTileAs<kRows, kVecs, Int8Output::kUint8, true>(blk, sums, r0, p0)
               : StoreTileAs<kRows, kVecs, Int8Output::kUint8, false>(blk, sums, r0, p0);
  }
}

// acc += `steps` k steps of the rows at a + r * lda (dense) or at row[r] (taps) times the panels from b. With kHalf,
// the last panel's first 8 columns only (the rest are the zero padding past N), in half[] on ymm: half the work of a
// panel where a zmm vpdpbusd takes two of the CPU's 256-bit operations (AMD Zen 4).
template <int kRows, int kVecs, bool kTaps, bool kHalf>
PTQ_VNNI512 inline __attribute__((always_inline)) void Steps(__m512i (&acc)[kRows][kVecs], __m256i (&half)[kRows],
                                                               const uint8_t* a, int64_t lda,
                                                               const uint8_t* const (&row)[kRows], const int8_t* b,
                                                               int64_t pb, int64_t steps) {
  constexpr int kFull = kHalf ? kVecs - 1 : kVecs;
  for (int64_t s = 0; s < steps; ++s) {
    __m512i bv[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kFull; ++v) bv[v] = _mm512_loadu_si512(b + v * pb + 64 * s);
    __m256i bh = _mm256_setzero_si256();
    if (kHalf) bh = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + kFull * pb + 64 * s));
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512i av = _mm512_set1_epi32(Load32((kTaps ? row[r] : a + r * lda) + 4 * s));
#pragma GCC unroll 8
      for (int v = 0; v < kFull; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], av, bv[v]);
      if (kHalf) half[r] = _mm256_dpbusd_epi32(half[r], _mm512_castsi512_si256(av), bh);
    }
  }
}

// kRows rows starting at r0, kVecs panels starting at panel p0; A's rows dense or by taps (kTaps); with kHalf, the
// last panel holds at most 8 of the block's columns.
template <int kRows, int kVecs, bool kTaps = false, bool kHalf = false>
PTQ_VNNI512 void Tile(const Int8Block& blk, int64_t r0, int64_t p0) {
  __m512i acc[kRows][kVecs];
  __m256i half[kRows];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    half[r] = _mm256_setzero_si256();
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  const int8_t* b = blk.b + p0 * blk.panel_bytes;
  const int64_t pb = blk.panel_bytes;
  if (kTaps) {  // each tap's run of every row, then the next tap's steps of B
    const uint8_t* first[kRows];
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) first[r] = Int8BlockRow(blk, r0 + r);
    for (int64_t t = 0; t < blk.taps; ++t, b += 64 * blk.tap_steps) {
      const uint8_t* row[kRows];
#pragma GCC unroll 8
      for (int r = 0; r < kRows; ++r) row[r] = first[r] + blk.tap_offset[t];
      Steps<kRows, kVecs, true, kHalf>(acc, half, nullptr, 0, row, b, pb, blk.tap_steps);
    }
  } else {
    const uint8_t* unused[kRows] = {};
    Steps<kRows, kVecs, false, kHalf>(acc, half, blk.a + r0 * blk.a_row_bytes, blk.a_row_bytes, unused, b, pb,
                                      blk.k_steps);
  }
  // The epilogue out of line, once per tile: inlined, it left too few registers for the accumulators here.
  alignas(64) int32_t sums[kRows][kVecs][16];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < (kHalf ? kVecs - 1 : kVecs); ++v) _mm512_store_si512(sums[r][v], acc[r][v]);
    if (kHalf) {  // the padding columns' sums are zeros, never stored
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums[r][kVecs - 1]), half[r]);
      _mm256_store_si256(reinterpret_cast<__m256i*>(sums[r][kVecs - 1] + 8), _mm256_setzero_si256());
    }
  }
  StoreTile<kRows, kVecs>(blk, sums, r0, p0);
}

template <int kVecs, bool kTaps, bool kHalf>
PTQ_VNNI512 void RowTiles(const Int8Block& blk, int64_t p0) {
  int64_t r = 0;
  for (; r + 6 <= blk.rows; r += 6) Tile<6, kVecs, kTaps, kHalf>(blk, r, p0);
  switch (blk.rows - r) {
    case 5: Tile<5, kVecs, kTaps, kHalf>(blk, r, p0); break;
    case 4: Tile<4, kVecs, kTaps, kHalf>(blk, r, p0); break;
    case 3: Tile<3, kVecs, kTaps, kHalf>(blk, r, p0); break;
    case 2: Tile<2, kVecs, kTaps, kHalf>(blk, r, p0); break;
    case 1: Tile<1, kVecs, kTaps, kHalf>(blk, r, p0); break;
    default: break;
  }
}

// Panels [p0, p0 + kVecs), the last of them the block's last panel of at most 8 columns when `half`.
template <int kVecs, bool kTaps>
PTQ_VNNI512 void PanelTiles(const Int8Block& blk, int64_t p0, bool half) {
  if (half) return RowTiles<kVecs, kTaps, true>(blk, p0);
  RowTiles<kVecs, kTaps, false>(blk, p0);
}

template <bool kTaps>
PTQ_VNNI512 void Block(const Int8Block& blk) {
  int64_t p = 0;
  if (!kTaps && blk.rows == 1) {  // one row: 8 independent accumulators hide vpdpbusd's latency
    for (; p + 8 <= blk.panels; p += 8) Tile<1, 8>(blk, 0, p);
  }
  // Whether the last panel holds at most 8 columns (as with N = 24 or 40).
  const bool last_half = blk.panels > 0 && blk.cols - (blk.panels - 1) * PackedInt8B::kPanelCols <= 8;
  for (; p + 4 <= blk.panels; p += 4) PanelTiles<4, kTaps>(blk, p, last_half && p + 4 == blk.panels);
  switch (blk.panels - p) {
    case 3: PanelTiles<3, kTaps>(blk, p, last_half); break;
    case 2: PanelTiles<2, kTaps>(blk, p, last_half); break;
    case 1: PanelTiles<1, kTaps>(blk, p, last_half); break;
    default: break;
  }
}

}  // namespace

PTQ_VNNI512 void Int8BlockAvx512Vnni(const Int8Block& blk) {
  if (blk.tap_offset != nullptr) return Block<true>(blk);
  Block<false>(blk);
}

}  // namespace ptq

#else  // not x86-64

#include <cstdlib>

namespace ptq {
void Int8BlockAvx512Vnni(const Int8Block&) { std::abort(); }
}  // namespace ptq

#endif
