// MatMulIntegerToFloat (domain "ptq.fused"): MatMulInteger scaled into float32 per output channel, the
// session's fused form of DequantizeLinear -> MatMul (integer_to_float.h gives the inputs and the formula).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMatMulIntegerToFloat(const KernelInit& init);

}  // namespace ptq
