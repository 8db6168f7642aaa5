// Squeeze: a view of the input without the given (or all) size-1 dimensions.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSqueeze(const KernelInit& init);

}  // namespace ptq
