// HardSwish: Y = X * clamp(X / 6 + 1/2, 0, 1) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeHardSwish(const KernelInit& init);

}  // namespace ptq
