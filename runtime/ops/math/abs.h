// Abs: Y = |X| element-wise, for every numeric type.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeAbs(const KernelInit& init);

}  // namespace ptq
