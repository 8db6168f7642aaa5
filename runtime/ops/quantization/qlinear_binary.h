// QLinearAdd / QLinearMul ("ptq.fused", made by the session from DequantizeLinear -> Add / Mul ->
// QuantizeLinear groups; runtime/qdq_fusion.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: A, A_scale, A_zero_point, B, B_scale, B_zero_point, C_scale, C_zero_point (8-bit tensors,
// scalar parameters), as ONNX Runtime's contrib ops. With numpy broadcasting,
//   C = QuantizeValue(DequantizeValue(A) op DequantizeValue(B), C_scale, C_zero_point)
// element by element, in float32 exactly as the three literal nodes compute it (the same bits), over
// blocks that stay in L1 instead of whole float tensors.
std::unique_ptr<Kernel> MakeQLinearAdd(const KernelInit& init);
std::unique_ptr<Kernel> MakeQLinearMul(const KernelInit& init);

}  // namespace ptq
