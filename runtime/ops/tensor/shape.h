// Shape: the input's dimensions, optionally a [start, end) slice of them, as 1-D int64.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeShape(const KernelInit& init);

}  // namespace ptq
