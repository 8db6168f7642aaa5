// Sign: Y = -1, 0 or 1 by the sign of X, element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSign(const KernelInit& init);

}  // namespace ptq
