// ReduceMin: the minimum of the elements over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceMin(const KernelInit& init);

}  // namespace ptq
