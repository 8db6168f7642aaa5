// ConvIntegerToFloat (domain "ptq.fused"): ConvInteger scaled into float32 per output channel, the
// session's fused form of DequantizeLinear -> Conv (integer_to_float.h gives the inputs and the formula).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeConvIntegerToFloat(const KernelInit& init);

}  // namespace ptq
