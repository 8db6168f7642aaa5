// ReduceProd: the product of the elements over the given axes (see reduce.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceProd(const KernelInit& init);

}  // namespace ptq
