// AddQuantizeLinear / MulQuantizeLinear ("ptq.fused", made by the session from a float Add / Mul whose only
// reader is QuantizeLinear; runtime/qdq_fusion.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: A, B, y_scale, y_zero_point (one float32 scale, one uint8 or int8 zero point); attribute opset: the
// QuantizeLinear's. With numpy broadcasting,
//   y = QuantizeLinear(A op B, y_scale, y_zero_point)
// with the bits of the two literal nodes: float32 A and B are combined a block of outputs at a time and the block
// quantized while in L1, instead of the whole float product being written out and read back (the
// squeeze-excitation Muls of int8 RegNet and EfficientNet models); A and B of other types (int32, float16) go
// through the literal ops, QuantizeLinear at `opset` checking their type.
std::unique_ptr<Kernel> MakeAddQuantizeLinear(const KernelInit& init);
std::unique_ptr<Kernel> MakeMulQuantizeLinear(const KernelInit& init);

}  // namespace ptq
