// AVX2 int8 GEMM block kernel and its packing of A: values widened to int16 and multiplied with vpmaddwd, which
// is exact (a pair sum is at most 2 * 255 * 128; vpmaddubsw on the bytes would saturate at 32767).
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#include <algorithm>

#define PTQ_YMM_TARGET __attribute__((target("avx2,fma")))

namespace ptq {
namespace {
// acc + (a0 * b0 + a1 * b1) per int32 lane, a and b holding int16 pairs.
PTQ_YMM_TARGET inline __m256i YmmStep(__m256i acc, __m256i a, __m256i b) {
  return _mm256_add_epi32(acc, _mm256_madd_epi16(a, b));
}
}  // namespace
}  // namespace ptq

#include "runtime/kernels/int8_gemm/int8_gemm_ymm_tile.h"

namespace ptq {
void Int8BlockAvx2(const Int8Block& blk) { YmmBlock(blk); }

// 16 bytes loaded from kFreshLanes + 16 - n: n zeros, then 16 - n bytes of 0xFF.
alignas(32) constexpr uint8_t kFreshLanes[32] = {
    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
    0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

PTQ_YMM_TARGET void PackRowsWideAvx2(const uint8_t* a, int64_t lda, bool is_signed, int64_t M, int64_t K,
                                     int64_t row_bytes, uint8_t* dst, int32_t* row_sum) {
  const uint8_t flip = is_signed ? 0x80 : 0;
  const __m128i flips = _mm_set1_epi8(static_cast<char>(flip));
  for (int64_t m = 0; m < M; ++m) {
    const uint8_t* row = a + m * lda;
    auto* d = reinterpret_cast<uint16_t*>(dst + m * row_bytes);
    __m128i sums = _mm_setzero_si128();  // two 64-bit partial sums (vpsadbw against zero)
    int64_t k = 0;
    for (; k + 16 <= K; k += 16) {
      const __m128i bytes = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + k)), flips);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + k), _mm256_cvtepu8_epi16(bytes));
      sums = _mm_add_epi64(sums, _mm_sad_epu8(bytes, _mm_setzero_si128()));
    }
    if (k < K && K >= 16) {  // the last 16 values, overlapping the ones done: stored again, summed once
      const int64_t done = 16 - (K - k);  // of those 16
      const __m128i bytes = _mm_xor_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + K - 16)), flips);
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + K - 16), _mm256_cvtepu8_epi16(bytes));
      const __m128i fresh = _mm_loadu_si128(reinterpret_cast<const __m128i*>(kFreshLanes + 16 - done));
      sums = _mm_add_epi64(sums, _mm_sad_epu8(_mm_and_si128(bytes, fresh), _mm_setzero_si128()));
      k = K;
    }
    int32_t sum = static_cast<int32_t>(_mm_cvtsi128_si64(sums) + _mm_extract_epi64(sums, 1));
    for (; k < K; ++k) {
      d[k] = static_cast<uint8_t>(row[k] ^ flip);
      sum += d[k];
    }
    std::fill(d + K, d + row_bytes / 2, uint16_t{0});
    row_sum[m] = sum;
  }
}
}  // namespace ptq

#else  // not x86-64

#include <cstdlib>

namespace ptq {
void Int8BlockAvx2(const Int8Block&) { std::abort(); }
void PackRowsWideAvx2(const uint8_t*, int64_t, bool, int64_t, int64_t, int64_t, uint8_t*, int32_t*) { std::abort(); }
}  // namespace ptq

#endif
