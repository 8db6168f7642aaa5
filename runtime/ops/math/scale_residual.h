// ScaleResidual (ptq.fused, made by the session from Add(x, Mul(x, s)); runtime/float_fusion.h): Y = X + X * S.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs X and S (one numeric type, numpy broadcasting). Y has the values of the two nodes, bit for bit but for the
// sign and payload of NaNs (which operand's NaN an operation on two NaNs returns is the compiler's choice in both):
// one pass where each value is stored as computed (float32, float64, integers, which wrap), the two nodes' passes
// for float16 and bfloat16 (whose product is rounded to 16 bits first).
std::unique_ptr<Kernel> MakeScaleResidual(const KernelInit& init);

}  // namespace ptq
