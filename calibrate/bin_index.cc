// CountBins: bin indices floor(x * 2^-e) - first_bin in float, counted in the same pass (AVX-512/AVX2/SSE2/scalar).
//
// The vector versions compute the indices of a chunk of values while the increments of the previous
// chunk run: the vector work hides behind the increments, which bound the speed (about one per cycle;
// measured on Zen 5: 0.30 ns per value against 0.44 for an index pass over 1024 values then the
// increments, and 0.48 when each vector's increments directly followed its store).
#include "calibrate/bin_index.h"

#include <algorithm>
#include <climits>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "runtime/cpu_features.h"

namespace ptq {
namespace {

// The counter of v[k] (the formula of bin_index.h) in scalar code: floor(y) is truncation minus one
// where it went up (y < trunc(y)) or where a negative x underflowed to -0; values whose y is not in
// (-2^31, 2^31) (NaN, +-Inf, far outside) and zeros go to a spare counter, as do indices outside [0, nb).
uint32_t ScalarCounter(float x, float scale, int32_t first, int32_t nb, size_t k) {
  const uint32_t spare = static_cast<uint32_t>(nb) + static_cast<uint32_t>(k & 3);
  const float y = x * scale;
  if (x == 0.0f || !(std::fabs(y) < 2147483648.0f)) return spare;
  int64_t t = static_cast<int32_t>(y);
  if (y < static_cast<float>(t) || (x < 0.0f && y == 0.0f)) --t;
  const uint32_t j = static_cast<uint32_t>(static_cast<int32_t>(static_cast<uint64_t>(t - first)));
  return std::min(j, spare);
}

// The scalar pass over v[i, n), continuing the range `r` (also the tail of the vector versions).
void ScalarCount(const float* v, size_t i, size_t n, float scale, int32_t first, int32_t nb, uint32_t* c,
                 size_t stride, size_t copies, IndexedRange* r) {
  for (; i < n; ++i) {
    const float x = v[i];
    r->min = x < r->min ? x : r->min;
    r->max = x > r->max ? x : r->max;
    r->has_nan = r->has_nan || x != x;
    r->zeros += x == 0.0f;
    ++c[(copies == 2 && (i & 1) ? stride : 0) + ScalarCounter(x, scale, first, nb, i)];
  }
}

#if defined(__x86_64__)
// The vector versions count chunks of kChunk values one chunk behind the index computation: the
// increments of chunk k read indices stored a whole chunk earlier (reading them right after the vector
// store stalls: the store cannot be forwarded to the narrower loads), and they overlap the vector work
// of chunk k + 1.
constexpr size_t kChunk = 64;

// ++c0[idx[k]], ++c1[idx[k + 1]] for the even k < kChunk.
inline void CountChunk(const uint32_t* idx, uint32_t* c0, uint32_t* c1) {
  for (size_t k = 0; k < kChunk; k += 2) {
    ++c0[idx[k]];
    ++c1[idx[k + 1]];
  }
}

// 4 lanes, SSE2 only (any x86-64): floor as truncation minus one where it went up; the unsigned minimum
// (pminud is SSE4.1) by a signed compare of the values with their sign bits flipped.
size_t Sse2Count(const float* v, size_t n, float scale, int32_t first, int32_t nb, uint32_t* c, size_t stride,
                 size_t copies, IndexedRange* r) {
  const __m128 s = _mm_set1_ps(scale);
  const __m128 zero = _mm_setzero_ps();
  const __m128i f = _mm_set1_epi32(first);
  const __m128i sign = _mm_set1_epi32(INT32_MIN);
  const __m128i spare = _mm_add_epi32(_mm_set1_epi32(nb), _mm_setr_epi32(0, 1, 2, 3));
  const __m128i spare_flipped = _mm_xor_si128(spare, sign);
  __m128 mn = _mm_set1_ps(r->min), mx = _mm_set1_ps(r->max), nan = zero;
  __m128i zeros = _mm_setzero_si128();
  uint32_t* c1 = copies == 2 ? c + stride : c;
  alignas(16) uint32_t idx[2][kChunk];
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    uint32_t* out = idx[(i / kChunk) & 1];
    for (size_t l = 0; l < kChunk; l += 4) {
      const __m128 x = _mm_loadu_ps(v + i + l);
      const __m128 y = _mm_mul_ps(x, s);
      const __m128i t = _mm_cvttps_epi32(y);
      const __m128 up = _mm_or_ps(_mm_cmplt_ps(y, _mm_cvtepi32_ps(t)), _mm_and_ps(_mm_cmplt_ps(x, zero), _mm_cmpeq_ps(y, zero)));
      const __m128i is_zero = _mm_castps_si128(_mm_cmpeq_ps(x, zero));
      __m128i j = _mm_sub_epi32(_mm_add_epi32(t, _mm_castps_si128(up)), f);
      j = _mm_or_si128(_mm_and_si128(is_zero, spare), _mm_andnot_si128(is_zero, j));
      const __m128i above = _mm_cmpgt_epi32(_mm_xor_si128(j, sign), spare_flipped);  // j > spare, unsigned
      _mm_store_si128(reinterpret_cast<__m128i*>(out + l), _mm_or_si128(_mm_and_si128(above, spare), _mm_andnot_si128(above, j)));
      mn = _mm_min_ps(x, mn);
      mx = _mm_max_ps(x, mx);
      nan = _mm_or_ps(nan, _mm_cmpunord_ps(x, x));
      zeros = _mm_sub_epi32(zeros, is_zero);
    }
    if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  }
  if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  alignas(16) float lmn[4], lmx[4];
  alignas(16) uint32_t lz[4];
  _mm_store_ps(lmn, mn);
  _mm_store_ps(lmx, mx);
  _mm_store_si128(reinterpret_cast<__m128i*>(lz), zeros);
  for (int l = 0; l < 4; ++l) {
    r->min = std::min(r->min, lmn[l]);
    r->max = std::max(r->max, lmx[l]);
    r->zeros += lz[l];
  }
  r->has_nan = r->has_nan || _mm_movemask_ps(nan) != 0;
  return i;
}

// 16 lanes: floor and conversion in one vcvtps2dq with round-down; the -0 underflow takes one more;
// vpminud sends zeros' lanes (set to their spare) and every index outside [0, nb) (negative ones are
// huge unsigned; NaN and out-of-range conversions give 0x80000000) to a spare counter.
__attribute__((target("avx512f"))) size_t Avx512Count(const float* v, size_t n, float scale, int32_t first, int32_t nb,
                                                      uint32_t* c, size_t stride, size_t copies, IndexedRange* r) {
  const __m512 s = _mm512_set1_ps(scale);
  const __m512 zero = _mm512_setzero_ps();
  const __m512i f = _mm512_set1_epi32(first);
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i zi = _mm512_setzero_si512();
  const __mmask16 all = 0xFFFF;  // the masked forms: GCC 12 warns about the unmasked ones' undefined source
  const __m512i spare = _mm512_add_epi32(_mm512_set1_epi32(nb), _mm512_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3));
  __m512 mn = _mm512_set1_ps(r->min), mx = _mm512_set1_ps(r->max);
  __mmask16 nan = 0;
  uint32_t zeros = 0;
  uint32_t* c1 = copies == 2 ? c + stride : c;
  alignas(64) uint32_t idx[2][kChunk];
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    uint32_t* out = idx[(i / kChunk) & 1];
    for (size_t l = 0; l < kChunk; l += 16) {
      const __m512 x = _mm512_loadu_ps(v + i + l);
      const __m512 y = _mm512_mul_ps(x, s);
      __m512i t = _mm512_mask_cvt_roundps_epi32(zi, all, y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
      const __mmask16 under = _mm512_cmp_ps_mask(x, zero, _CMP_LT_OQ) & _mm512_cmp_ps_mask(y, zero, _CMP_EQ_OQ);
      t = _mm512_mask_sub_epi32(t, under, t, one);
      const __mmask16 is_zero = _mm512_cmp_ps_mask(x, zero, _CMP_EQ_OQ);
      const __m512i j = _mm512_mask_blend_epi32(is_zero, _mm512_sub_epi32(t, f), spare);
      _mm512_store_si512(out + l, _mm512_mask_min_epu32(zi, all, j, spare));
      mn = _mm512_mask_min_ps(mn, all, x, mn);  // keeps mn where x is NaN
      mx = _mm512_mask_max_ps(mx, all, x, mx);
      nan |= _mm512_cmp_ps_mask(x, x, _CMP_UNORD_Q);
      zeros += static_cast<uint32_t>(__builtin_popcount(is_zero));
    }
    if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  }
  if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  alignas(64) float lmn[16], lmx[16];
  _mm512_store_ps(lmn, mn);
  _mm512_store_ps(lmx, mx);
  for (int l = 0; l < 16; ++l) {
    r->min = std::min(r->min, lmn[l]);
    r->max = std::max(r->max, lmx[l]);
  }
  r->has_nan = r->has_nan || nan != 0;
  r->zeros += zeros;
  return i;
}

// 8 lanes: floor by vroundps (exact: an integer-valued float converts exactly), vpminud as above.
__attribute__((target("avx2"))) size_t Avx2Count(const float* v, size_t n, float scale, int32_t first, int32_t nb,
                                                 uint32_t* c, size_t stride, size_t copies, IndexedRange* r) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 zero = _mm256_setzero_ps();
  const __m256i f = _mm256_set1_epi32(first);
  const __m256i spare = _mm256_add_epi32(_mm256_set1_epi32(nb), _mm256_setr_epi32(0, 1, 2, 3, 0, 1, 2, 3));
  __m256 mn = _mm256_set1_ps(r->min), mx = _mm256_set1_ps(r->max), nan = zero;
  __m256i zeros = _mm256_setzero_si256();
  uint32_t* c1 = copies == 2 ? c + stride : c;
  alignas(32) uint32_t idx[2][kChunk];
  size_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    uint32_t* out = idx[(i / kChunk) & 1];
    for (size_t l = 0; l < kChunk; l += 8) {
      const __m256 x = _mm256_loadu_ps(v + i + l);
      const __m256 y = _mm256_mul_ps(x, s);
      const __m256i t = _mm256_cvttps_epi32(_mm256_floor_ps(y));
      const __m256 under = _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_LT_OQ), _mm256_cmp_ps(y, zero, _CMP_EQ_OQ));
      const __m256i j = _mm256_sub_epi32(_mm256_add_epi32(t, _mm256_castps_si256(under)), f);
      const __m256i is_zero = _mm256_castps_si256(_mm256_cmp_ps(x, zero, _CMP_EQ_OQ));
      _mm256_store_si256(reinterpret_cast<__m256i*>(out + l), _mm256_min_epu32(_mm256_blendv_epi8(j, spare, is_zero), spare));
      mn = _mm256_min_ps(x, mn);
      mx = _mm256_max_ps(x, mx);
      nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
      zeros = _mm256_sub_epi32(zeros, is_zero);
    }
    if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  }
  if (i > 0) CountChunk(idx[((i / kChunk) & 1) ^ 1], c, c1);
  alignas(32) float lmn[8], lmx[8];
  alignas(32) uint32_t lz[8];
  _mm256_store_ps(lmn, mn);
  _mm256_store_ps(lmx, mx);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lz), zeros);
  for (int l = 0; l < 8; ++l) {
    r->min = std::min(r->min, lmn[l]);
    r->max = std::max(r->max, lmx[l]);
    r->zeros += lz[l];
  }
  r->has_nan = r->has_nan || _mm256_movemask_ps(nan) != 0;
  return i;
}
#endif

}  // namespace

IndexedRange CountBins(const float* v, size_t n, float scale, int32_t first, int32_t nb, uint32_t* c, size_t stride,
                       size_t copies, BinIsa isa) {
  const float inf = std::numeric_limits<float>::infinity();
  IndexedRange r{inf, -inf, false, 0};
  size_t i = 0;
#if defined(__x86_64__)
  const CpuFeatures& cpu = GetCpuFeatures();
  const bool avx512 = cpu.avx512f && (isa == BinIsa::kBest || isa == BinIsa::kAvx512);
  const bool avx2 = cpu.avx2_fma && (isa == BinIsa::kBest || isa == BinIsa::kAvx512 || isa == BinIsa::kAvx2);
  if (avx512) {
    i = Avx512Count(v, n, scale, first, nb, c, stride, copies, &r);
  } else if (avx2) {
    i = Avx2Count(v, n, scale, first, nb, c, stride, copies, &r);
  } else if (isa != BinIsa::kScalar) {
    i = Sse2Count(v, n, scale, first, nb, c, stride, copies, &r);
  }
#endif
  ScalarCount(v, i, n, scale, first, nb, c, stride, copies, &r);
  return r;
}

}  // namespace ptq
