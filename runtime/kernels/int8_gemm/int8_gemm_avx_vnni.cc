// AVX-VNNI int8 GEMM block kernel: vpdpbusd on ymm (unsigned bytes of A times signed bytes of B).
#include "runtime/kernels/int8_gemm/int8_gemm_kernels.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define PTQ_YMM_TARGET __attribute__((target("avx2,fma,avxvnni")))

namespace ptq {
namespace {
// acc + the dot products of 4 unsigned bytes of a with 4 signed bytes of b per int32 lane (no saturation).
PTQ_YMM_TARGET inline __m256i YmmStep(__m256i acc, __m256i a, __m256i b) { return _mm256_dpbusd_avx_epi32(acc, a, b); }
}  // namespace
}  // namespace ptq

#include "runtime/kernels/int8_gemm/int8_gemm_ymm_tile.h"

namespace ptq {
void Int8BlockAvxVnni(const Int8Block& blk) { YmmBlock(blk); }
}  // namespace ptq

#else  // not x86-64

#include <cstdlib>

namespace ptq {
void Int8BlockAvxVnni(const Int8Block&) { std::abort(); }
}  // namespace ptq

#endif
