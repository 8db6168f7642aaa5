// Einsum: sums of products of tensor elements over labelled axes ("bij,bjk->bik").
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Any valid equation with any number of inputs: ellipses, implicit outputs, diagonals (a label
// repeated within a term), sums over labels absent from the output, size-1 broadcasting. Pairs of
// operands are contracted left to right by batched GEMM on views of the operands (no copy when an
// operand is already laid out [batch, rows, inner] or [batch, inner, rows]). Types: float32,
// float64, float16, bfloat16 (computed in float32), int32, int64, uint32, uint64. Opsets 12-21.
std::unique_ptr<Kernel> MakeEinsum(const KernelInit& init);

}  // namespace ptq
