// Ceil: Y = ceil(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCeil(const KernelInit& init);

}  // namespace ptq
