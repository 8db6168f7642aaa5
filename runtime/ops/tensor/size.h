// Size: the input's element count as an int64 scalar.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSize(const KernelInit& init);

}  // namespace ptq
