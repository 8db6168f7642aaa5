// ReduceSumSquare: the sum of x^2 over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceSumSquare(const KernelInit& init);

}  // namespace ptq
