// Erf: Y = erf(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeErf(const KernelInit& init);

}  // namespace ptq
