// Reshape: the same elements under a new shape (a view of the input's buffer).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReshape(const KernelInit& init);

}  // namespace ptq
