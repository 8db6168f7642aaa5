// Flatten: a 2-D view [prod(dims[:axis]), prod(dims[axis:])] of the input.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeFlatten(const KernelInit& init);

}  // namespace ptq
