// ReduceL2: the L2 norm (sqrt of the sum of x^2) over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceL2(const KernelInit& init);

}  // namespace ptq
