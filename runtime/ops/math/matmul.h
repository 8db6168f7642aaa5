// MatMul: numpy.matmul of two tensors (1-D operands promoted, batch axes broadcast).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs A, B of the same type: float32, float64, float16, bfloat16, int32, int64, uint32, uint64.
// float16/bfloat16 are computed in float32; integers wrap. Opsets 1-21.
std::unique_ptr<Kernel> MakeMatMul(const KernelInit& init);

}  // namespace ptq
