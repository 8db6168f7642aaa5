// ArgMax: the index of the largest element along an axis (see arg_reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeArgMax(const KernelInit& init);

}  // namespace ptq
