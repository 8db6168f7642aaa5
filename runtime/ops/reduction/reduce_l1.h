// ReduceL1: the L1 norm (sum of |x|) over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceL1(const KernelInit& init);

}  // namespace ptq
