// LookupTable (domain "ptq.fused"): y = table[x] for 8-bit x, the session's fused form of
// DequantizeLinear -> element-wise unary op -> QuantizeLinear (runtime/qdq_fusion.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: x (uint8 or int8), table (256 values of the output type, uint8 or int8), indexed by x's
// byte: table[b] is the result for the x whose bit pattern is b. Output: y, x's shape, table's type.
std::unique_ptr<Kernel> MakeLookupTable(const KernelInit& init);

}  // namespace ptq
