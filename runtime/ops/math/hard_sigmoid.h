// HardSigmoid: Y = clamp(alpha * X + beta, 0, 1) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeHardSigmoid(const KernelInit& init);

}  // namespace ptq
