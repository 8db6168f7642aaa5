// Softplus: Y = ln(e^X + 1) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSoftplus(const KernelInit& init);

}  // namespace ptq
