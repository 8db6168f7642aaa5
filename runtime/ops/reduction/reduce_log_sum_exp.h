// ReduceLogSumExp: the log of the sum of e^x over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceLogSumExp(const KernelInit& init);

}  // namespace ptq
