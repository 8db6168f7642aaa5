// SiLU over float32 arrays with AVX2: the operations of VecSigmoid (vector_math.h), several vectors at a time.
#pragma once

#include <cstdint>

namespace ptq {

// y[i] = x[i] * VecSigmoid(x[i]) for i < n, each value computed by the same IEEE operations in the same order as
// that scalar code (so the same bits; fused multiply-adds exactly where it calls std::fma), four vectors of 8 per
// step so that the division's latency overlaps the other vectors' work; the last n % 8 values by the scalar code.
// x may be y.
// REQUIRES: GetCpuFeatures().avx2_fma (x86-64 only: elsewhere this aborts).
void SiluF32Avx2(const float* x, float* y, int64_t n);

}  // namespace ptq
