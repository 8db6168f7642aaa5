// ArgMin: the index of the smallest element along an axis (see arg_reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeArgMin(const KernelInit& init);

}  // namespace ptq
