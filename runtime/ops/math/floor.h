// Floor: Y = floor(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeFloor(const KernelInit& init);

}  // namespace ptq
