// AVX2 int8 GEMM block kernel: values widened to int16 and multiplied with vpmaddwd, which is exact
// (a pair sum is at most 2 * 255 * 128; vpmaddubsw on the bytes would saturate at 32767).
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

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
}  // namespace ptq

#else  // not x86-64

#include <cstdlib>

namespace ptq {
void Int8BlockAvx2(const Int8Block&) { std::abort(); }
}  // namespace ptq

#endif
