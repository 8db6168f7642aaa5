// MatMulInteger: numpy.matmul of uint8/int8 tensors minus their zero points, into int32.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: A, B (uint8 or int8, any combination), optional a_zero_point (type of A; scalar, [M]
// when A is 2-D, or [..., M, 1]: per row), optional b_zero_point (type of B; scalar, [N] or
// [..., 1, N]: per column). Output: int32, numpy.matmul's shape.
std::unique_ptr<Kernel> MakeMatMulInteger(const KernelInit& init);
// The kernel behind MatMulInteger (to_float false) and ptq.fused MatMulIntegerToFloat (integer_to_float.h).
std::unique_ptr<Kernel> MakeMatMulIntegerKernel(const KernelInit& init, bool to_float);

}  // namespace ptq
