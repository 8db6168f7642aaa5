// Unsqueeze: a view of the input with size-1 dimensions inserted at the given output axes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeUnsqueeze(const KernelInit& init);

}  // namespace ptq
