// Bin indices floor(x * 2^-e) - first_bin in float (alone or with a min/max scan): AVX2, SSE2 and scalar versions.
#include "calibrate/bin_index.h"

#include <algorithm>
#include <cmath>
#include <limits>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "runtime/cpu_features.h"

namespace ptq {
namespace {

// floor(y) where y = x * scale: truncation, minus one where it went up (y < trunc(y)) or where a
// negative x underflowed to -0.
int32_t ScalarIndex(float x, float scale, int32_t first) {
  const float y = x * scale;
  int32_t j = static_cast<int32_t>(y);
  if (y < static_cast<float>(j) || (x < 0.0f && y == 0.0f)) --j;
  return j - first;
}

size_t ScalarTail(const float* v, size_t i, size_t n, float scale, int32_t first, int32_t skip_base, bool check,
                  int32_t* idx) {
  for (; i < n; ++i) {
    const float x = v[i];
    const bool skip = x == 0.0f || (check && !std::isfinite(x));
    idx[i] = skip ? skip_base + static_cast<int32_t>(i & 3) : ScalarIndex(x, scale, first);
  }
  return i;
}

#if defined(__x86_64__)
// The same formula, 4 lanes. x * 0 is NaN exactly when x is NaN or +-Inf.
size_t Sse2Indices(const float* v, size_t n, float scale, int32_t first, int32_t skip_base, int32_t* idx) {
  const __m128 s = _mm_set1_ps(scale);
  const __m128 zero = _mm_setzero_ps();
  const __m128i f = _mm_set1_epi32(first);
  const __m128i spare = _mm_setr_epi32(skip_base, skip_base + 1, skip_base + 2, skip_base + 3);
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(v + i);
    const __m128 y = _mm_mul_ps(x, s);
    const __m128i t = _mm_cvttps_epi32(y);
    const __m128 up = _mm_or_ps(_mm_cmplt_ps(y, _mm_cvtepi32_ps(t)), _mm_and_ps(_mm_cmplt_ps(x, zero), _mm_cmpeq_ps(y, zero)));
    const __m128i j = _mm_sub_epi32(_mm_add_epi32(t, _mm_castps_si128(up)), f);
    const __m128 p = _mm_mul_ps(x, zero);
    const __m128i skip = _mm_castps_si128(_mm_or_ps(_mm_cmpeq_ps(x, zero), _mm_cmpunord_ps(p, p)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(idx + i), _mm_or_si128(_mm_and_si128(skip, spare), _mm_andnot_si128(skip, j)));
  }
  return i;
}

// The same formula, 8 lanes; the spare counters repeat every 4 lanes as in the other versions.
__attribute__((target("avx2"))) size_t Avx2Indices(const float* v, size_t n, float scale, int32_t first,
                                                   int32_t skip_base, int32_t* idx) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 zero = _mm256_setzero_ps();
  const __m256i f = _mm256_set1_epi32(first);
  const __m256i spare = _mm256_setr_epi32(skip_base, skip_base + 1, skip_base + 2, skip_base + 3, skip_base,
                                          skip_base + 1, skip_base + 2, skip_base + 3);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(v + i);
    const __m256 y = _mm256_mul_ps(x, s);
    const __m256i t = _mm256_cvttps_epi32(y);
    const __m256 up = _mm256_or_ps(_mm256_cmp_ps(y, _mm256_cvtepi32_ps(t), _CMP_LT_OQ),
                                   _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_LT_OQ), _mm256_cmp_ps(y, zero, _CMP_EQ_OQ)));
    const __m256i j = _mm256_sub_epi32(_mm256_add_epi32(t, _mm256_castps_si256(up)), f);
    const __m256 p = _mm256_mul_ps(x, zero);
    const __m256i skip =
        _mm256_castps_si256(_mm256_or_ps(_mm256_cmp_ps(x, zero, _CMP_EQ_OQ), _mm256_cmp_ps(p, p, _CMP_UNORD_Q)));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + i), _mm256_blendv_epi8(j, spare, skip));
  }
  return i;
}

// Sse2Indices plus the scan: per lane the min and max (_mm_min_ps(x, m) keeps m when x is NaN), an OR of
// the NaN masks and a count of zeros (a true lane of a compare is -1). Only zeros are skipped.
size_t Sse2IndicesAndRange(const float* v, size_t n, float scale, int32_t first, int32_t skip_base, int32_t* idx,
                           IndexedRange* r) {
  const __m128 s = _mm_set1_ps(scale);
  const __m128 zero = _mm_setzero_ps();
  const __m128i f = _mm_set1_epi32(first);
  const __m128i spare = _mm_setr_epi32(skip_base, skip_base + 1, skip_base + 2, skip_base + 3);
  __m128 mn = _mm_set1_ps(r->min), mx = _mm_set1_ps(r->max), nan = zero;
  __m128i zeros = _mm_setzero_si128();
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    const __m128 x = _mm_loadu_ps(v + i);
    const __m128 y = _mm_mul_ps(x, s);
    const __m128i t = _mm_cvttps_epi32(y);
    const __m128 up = _mm_or_ps(_mm_cmplt_ps(y, _mm_cvtepi32_ps(t)), _mm_and_ps(_mm_cmplt_ps(x, zero), _mm_cmpeq_ps(y, zero)));
    const __m128i j = _mm_sub_epi32(_mm_add_epi32(t, _mm_castps_si128(up)), f);
    const __m128i skip = _mm_castps_si128(_mm_cmpeq_ps(x, zero));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(idx + i), _mm_or_si128(_mm_and_si128(skip, spare), _mm_andnot_si128(skip, j)));
    mn = _mm_min_ps(x, mn);
    mx = _mm_max_ps(x, mx);
    nan = _mm_or_ps(nan, _mm_cmpunord_ps(x, x));
    zeros = _mm_sub_epi32(zeros, skip);
  }
  alignas(16) float lmn[4], lmx[4];
  alignas(16) int32_t lz[4];
  _mm_store_ps(lmn, mn);
  _mm_store_ps(lmx, mx);
  _mm_store_si128(reinterpret_cast<__m128i*>(lz), zeros);
  for (int l = 0; l < 4; ++l) {
    r->min = std::min(r->min, lmn[l]);
    r->max = std::max(r->max, lmx[l]);
    r->zeros += static_cast<uint32_t>(lz[l]);
  }
  if (_mm_movemask_ps(nan)) r->has_nan = true;
  return i;
}

// The same, 8 lanes, with floor by vroundps: floor(y) is an integer-valued float (exact: |y| < 2^22),
// so cvtt gives it exactly; a negative x whose product underflowed to -0 still gets -1.
__attribute__((target("avx2"))) size_t Avx2IndicesAndRange(const float* v, size_t n, float scale, int32_t first,
                                                           int32_t skip_base, int32_t* idx, IndexedRange* r) {
  const __m256 s = _mm256_set1_ps(scale);
  const __m256 zero = _mm256_setzero_ps();
  const __m256i f = _mm256_set1_epi32(first);
  const __m256i spare = _mm256_setr_epi32(skip_base, skip_base + 1, skip_base + 2, skip_base + 3, skip_base,
                                          skip_base + 1, skip_base + 2, skip_base + 3);
  __m256 mn = _mm256_set1_ps(r->min), mx = _mm256_set1_ps(r->max), nan = zero;
  __m256i zeros = _mm256_setzero_si256();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256 x = _mm256_loadu_ps(v + i);
    const __m256 y = _mm256_mul_ps(x, s);
    const __m256i t = _mm256_cvttps_epi32(_mm256_floor_ps(y));
    const __m256 under = _mm256_and_ps(_mm256_cmp_ps(x, zero, _CMP_LT_OQ), _mm256_cmp_ps(y, zero, _CMP_EQ_OQ));
    const __m256i j = _mm256_sub_epi32(_mm256_add_epi32(t, _mm256_castps_si256(under)), f);
    const __m256 is_zero = _mm256_cmp_ps(x, zero, _CMP_EQ_OQ);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(idx + i), _mm256_blendv_epi8(j, spare, _mm256_castps_si256(is_zero)));
    mn = _mm256_min_ps(x, mn);
    mx = _mm256_max_ps(x, mx);
    nan = _mm256_or_ps(nan, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));
    zeros = _mm256_sub_epi32(zeros, _mm256_castps_si256(is_zero));
  }
  alignas(32) float lmn[8], lmx[8];
  alignas(32) int32_t lz[8];
  _mm256_store_ps(lmn, mn);
  _mm256_store_ps(lmx, mx);
  _mm256_store_si256(reinterpret_cast<__m256i*>(lz), zeros);
  for (int l = 0; l < 8; ++l) {
    r->min = std::min(r->min, lmn[l]);
    r->max = std::max(r->max, lmx[l]);
    r->zeros += static_cast<uint32_t>(lz[l]);
  }
  if (_mm256_movemask_ps(nan)) r->has_nan = true;
  return i;
}
#endif

}  // namespace

IndexedRange FloatBinIndicesAndRange(const float* v, size_t n, float scale, int32_t first, int32_t skip_base,
                                     int32_t* idx, bool allow_avx2) {
  const float inf = std::numeric_limits<float>::infinity();
  IndexedRange r{inf, -inf, false, 0};
  size_t i = 0;
#if defined(__x86_64__)
  i = allow_avx2 && GetCpuFeatures().avx2_fma ? Avx2IndicesAndRange(v, n, scale, first, skip_base, idx, &r)
                                              : Sse2IndicesAndRange(v, n, scale, first, skip_base, idx, &r);
#endif
  for (size_t k = i; k < n; ++k) {
    const float x = v[k];
    r.min = x < r.min ? x : r.min;
    r.max = x > r.max ? x : r.max;
    r.has_nan = r.has_nan || std::isnan(x);
    r.zeros += x == 0.0f;
    idx[k] = x == 0.0f ? skip_base + static_cast<int32_t>(k & 3) : (std::isfinite(x) ? ScalarIndex(x, scale, first) : 0);
  }
  return r;
}

void FloatBinIndices(const float* v, size_t n, float scale, int32_t first, int32_t skip_base, bool check_finite,
                     int32_t* idx) {
  size_t i = 0;
#if defined(__x86_64__)
  i = GetCpuFeatures().avx2_fma ? Avx2Indices(v, n, scale, first, skip_base, idx)
                                : Sse2Indices(v, n, scale, first, skip_base, idx);
#endif
  ScalarTail(v, i, n, scale, first, skip_base, check_finite, idx);
}

}  // namespace ptq
