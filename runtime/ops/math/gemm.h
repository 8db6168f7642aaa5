// Gemm: Y = alpha * A' * B' + beta * C, with A' = A or A^T, B' = B or B^T and C broadcast to Y.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs A [M, K] (or [K, M] with transA), B [K, N] (or [N, K] with transB), optional C that
// broadcasts unidirectionally to [M, N] (scalar, [N], [1, N], [M, 1], [M, N]). Types: float32,
// float64, float16, bfloat16 (computed in float32), int32, int64, uint32, uint64. Opsets 1-21; the
// `broadcast` attribute of opsets < 7 is accepted and C is broadcast whenever its shape allows.
std::unique_ptr<Kernel> MakeGemm(const KernelInit& init);

}  // namespace ptq
