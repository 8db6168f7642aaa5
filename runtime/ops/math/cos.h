// Cos: Y = cos(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCos(const KernelInit& init);

}  // namespace ptq
