// Sqrt: Y = sqrt(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSqrt(const KernelInit& init);

}  // namespace ptq
