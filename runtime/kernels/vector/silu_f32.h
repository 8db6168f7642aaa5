// SiLU over float32 arrays with AVX2 or AVX-512: the operations of VecSigmoid (vector_math.h), several vectors at a
// time.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] = x[i] * VecSigmoid(x[i]) for i < n, each value computed by the same IEEE operations in the same order as
// that scalar code (so the same bits; fused multiply-adds exactly where it calls std::fma), four vectors of 8 per
// step so that the division's latency overlaps the other vectors' work; the last n % 8 values by the scalar code.
// x may be y.
// REQUIRES: GetCpuFeatures().avx2_fma (x86-64 only: elsewhere this aborts).
void SiluF32Avx2(const float* x, float* y, int64_t n);

// SiluF32Avx2's contract with zmm registers, two vectors of 16 per step and the last n % 16 values under a mask;
// VecExp's 2^n as one vscalefps (p * 2^n rounded once, as p * 2^n1 * 2^n2 is: the first product is exact), so
// the same bits as the scalar code for every float (checked for all 2^32 when written), in 0.29-0.41 ns a value
// against 0.41-0.47 for the compiler's AVX-512 clone of the scalar code and 0.53-0.55 for SiluF32Avx2 (Zen 4).
// x may be y.
// REQUIRES: GetCpuFeatures().avx512f (x86-64 only: elsewhere this aborts).
void SiluF32Avx512(const float* x, float* y, int64_t n);

}  // namespace ptq
