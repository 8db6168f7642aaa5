// AVX-512 VNNI int8 GEMM block kernel: vpdpbusd tiles of up to 6 rows x 64 columns (1 x 128 for one row),
// with the zero-point corrections and the requantization done on the accumulators before the store.
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>
#include <cstring>

// GCC 12 reports the deliberately undefined pass-through operand of its own AVX-512 intrinsics
// (_mm512_undefined_ps) as maybe uninitialised once they are inlined here; it is never read.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#define PTQ_VNNI512 __attribute__((target("avx512f,avx512vnni")))

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

// The epilogue of Int8Block for 16 columns of row r (mask selects the columns stored).
PTQ_VNNI512 __attribute__((noinline)) void Store(const Int8Block& blk, __m512i acc, int64_t r, int64_t c, __mmask16 mask) {
  if (blk.any_b_zero_point) {
    const __m512i zp = _mm512_loadu_si512(blk.b_zero_point + c);
    acc = _mm512_sub_epi32(acc, _mm512_mullo_epi32(zp, _mm512_set1_epi32(blk.a_row_sum[r])));
  }
  const int32_t a_zp = blk.a_zero_point[r];
  if (a_zp != 0) {
    const __m512i adjust = _mm512_loadu_si512(blk.col_adjust + c);
    acc = _mm512_sub_epi32(acc, _mm512_mullo_epi32(adjust, _mm512_set1_epi32(a_zp)));
  }
  acc = _mm512_add_epi32(acc, _mm512_loadu_si512(blk.bias + c));
  if (blk.out == Int8Output::kInt32) {
    _mm512_mask_storeu_epi32(static_cast<int32_t*>(blk.c) + r * blk.ldc + c, mask, acc);
    return;
  }
  __m512 v = _mm512_mul_ps(_mm512_cvtepi32_ps(acc), _mm512_loadu_ps(blk.multiplier + c));
  if (blk.out == Int8Output::kFloat) {
    v = _mm512_add_ps(v, _mm512_loadu_ps(blk.float_bias + c));
    _mm512_mask_storeu_ps(static_cast<float*>(blk.c) + r * blk.ldc + c, mask, v);
    return;
  }
  v = _mm512_roundscale_ps(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  v = _mm512_max_ps(v, _mm512_set1_ps(blk.lo));  // NaN gives lo (the second operand): qmin
  v = _mm512_min_ps(v, _mm512_set1_ps(blk.hi));
  const __m512i q = _mm512_add_epi32(_mm512_cvtps_epi32(v), _mm512_set1_epi32(blk.y_zero_point));
  // q is within the output type's range, so keeping the low byte is exact for uint8 and int8.
  _mm512_mask_cvtepi32_storeu_epi8(static_cast<uint8_t*>(blk.c) + r * blk.ldc + c, mask, q);
}

// The epilogue of a tile when B has no zero points: the column terms loaded once per tile (with A's zero point
// folded into the bias when the tile's rows share it: the int32 sums wrap alike in any order), then Store's
// operations; 8-bit values are clamped before one rounding conversion (the bounds are integers, so that is the
// clamp of the rounded value; NaN gives lo either way), narrowed in registers and stored whole but for the last
// columns.
template <int kRows, int kVecs>
PTQ_VNNI512 inline void StoreTile(const Int8Block& blk, __m512i (&acc)[kRows][kVecs], int64_t r0, int64_t p0) {
  const int32_t a_zp = blk.a_zero_point[r0];
  bool shared_zp = true;
#pragma GCC unroll 8
  for (int r = 1; r < kRows; ++r) shared_zp = shared_zp && blk.a_zero_point[r0 + r] == a_zp;
  const bool to_float = blk.out == Int8Output::kFloat, to_int32 = blk.out == Int8Output::kInt32;
  __m512i bias[kVecs];
  __m512 mult[kVecs], float_bias[kVecs];
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    const int64_t c = (p0 + v) * 16;
    bias[v] = _mm512_loadu_si512(blk.bias + c);
    if (shared_zp && a_zp != 0) {
      const __m512i adjust = _mm512_loadu_si512(blk.col_adjust + c);
      bias[v] = _mm512_sub_epi32(bias[v], _mm512_mullo_epi32(adjust, _mm512_set1_epi32(a_zp)));
    }
    if (!to_int32) mult[v] = _mm512_loadu_ps(blk.multiplier + c);
    if (to_float) float_bias[v] = _mm512_loadu_ps(blk.float_bias + c);
  }
  const __m512 lo = _mm512_set1_ps(blk.lo), hi = _mm512_set1_ps(blk.hi);
  const __m512i y_zp = _mm512_set1_epi32(blk.y_zero_point);
  const __mmask16 last_mask = FirstLanes(blk.cols - (p0 + kVecs - 1) * 16);
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
    const int32_t row_zp = blk.a_zero_point[r0 + r];
    const int64_t at = (r0 + r) * blk.ldc + p0 * 16;  // the row's first output of the tile
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) {
      const __mmask16 mask = v + 1 < kVecs ? static_cast<__mmask16>(0xFFFF) : last_mask;
      __m512i a = acc[r][v];
      if (!shared_zp && row_zp != 0) {
        const __m512i adjust = _mm512_loadu_si512(blk.col_adjust + (p0 + v) * 16);
        a = _mm512_sub_epi32(a, _mm512_mullo_epi32(adjust, _mm512_set1_epi32(row_zp)));
      }
      a = _mm512_add_epi32(a, bias[v]);
      if (to_int32) {
        _mm512_mask_storeu_epi32(static_cast<int32_t*>(blk.c) + at + v * 16, mask, a);
        continue;
      }
      __m512 x = _mm512_mul_ps(_mm512_cvtepi32_ps(a), mult[v]);
      if (to_float) {  // a multiply, then an add (no FMA), as Store
        _mm512_mask_storeu_ps(static_cast<float*>(blk.c) + at + v * 16, mask, _mm512_add_ps(x, float_bias[v]));
        continue;
      }
      x = _mm512_min_ps(_mm512_max_ps(x, lo), hi);
      const __m512i rounded = _mm512_cvt_roundps_epi32(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
      const __m512i q = _mm512_add_epi32(rounded, y_zp);
      uint8_t* out = static_cast<uint8_t*>(blk.c) + at + v * 16;
      if (mask == 0xFFFF) {  // q is within the output type's range: its low bytes
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm512_cvtepi32_epi8(q));
      } else {
        _mm512_mask_cvtepi32_storeu_epi8(out, mask, q);
      }
    }
  }
}

// kRows rows starting at r0, kVecs panels starting at panel p0.
template <int kRows, int kVecs>
PTQ_VNNI512 void Tile(const Int8Block& blk, int64_t r0, int64_t p0) {
  __m512i acc[kRows][kVecs];
#pragma GCC unroll 8
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_setzero_si512();
  }
  const uint8_t* a = blk.a + r0 * blk.a_row_bytes;
  const int64_t lda = blk.a_row_bytes;
  const int8_t* b = blk.b + p0 * blk.panel_bytes;
  const int64_t pb = blk.panel_bytes;
  for (int64_t s = 0; s < blk.k_steps; ++s) {
    __m512i bv[kVecs];
#pragma GCC unroll 8
    for (int v = 0; v < kVecs; ++v) bv[v] = _mm512_loadu_si512(b + v * pb + 64 * s);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) {
      const __m512i av = _mm512_set1_epi32(Load32(a + r * lda + 4 * s));
#pragma GCC unroll 8
      for (int v = 0; v < kVecs; ++v) acc[r][v] = _mm512_dpbusd_epi32(acc[r][v], av, bv[v]);
    }
  }
  if (!blk.any_b_zero_point) {
    StoreTile<kRows, kVecs>(blk, acc, r0, p0);
    return;
  }
#pragma GCC unroll 8
  for (int v = 0; v < kVecs; ++v) {
    const int64_t c = (p0 + v) * 16;
    const __mmask16 mask = FirstLanes(blk.cols - c);
#pragma GCC unroll 8
    for (int r = 0; r < kRows; ++r) Store(blk, acc[r][v], r0 + r, c, mask);
  }
}

template <int kVecs>
PTQ_VNNI512 void RowTiles(const Int8Block& blk, int64_t p0) {
  int64_t r = 0;
  for (; r + 6 <= blk.rows; r += 6) Tile<6, kVecs>(blk, r, p0);
  switch (blk.rows - r) {
    case 5: Tile<5, kVecs>(blk, r, p0); break;
    case 4: Tile<4, kVecs>(blk, r, p0); break;
    case 3: Tile<3, kVecs>(blk, r, p0); break;
    case 2: Tile<2, kVecs>(blk, r, p0); break;
    case 1: Tile<1, kVecs>(blk, r, p0); break;
    default: break;
  }
}

}  // namespace

PTQ_VNNI512 void Int8BlockAvx512Vnni(const Int8Block& blk) {
  int64_t p = 0;
  if (blk.rows == 1) {  // one row: 8 independent accumulators hide vpdpbusd's latency
    for (; p + 8 <= blk.panels; p += 8) Tile<1, 8>(blk, 0, p);
  }
  for (; p + 4 <= blk.panels; p += 4) RowTiles<4>(blk, p);
  switch (blk.panels - p) {
    case 3: RowTiles<3>(blk, p); break;
    case 2: RowTiles<2>(blk, p); break;
    case 1: RowTiles<1>(blk, p); break;
    default: break;
  }
}

}  // namespace ptq

#else  // not x86-64

#include <cstdlib>

namespace ptq {
void Int8BlockAvx512Vnni(const Int8Block&) { std::abort(); }
}  // namespace ptq

#endif
