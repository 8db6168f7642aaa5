// Reciprocal: Y = 1 / X element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReciprocal(const KernelInit& init);

}  // namespace ptq
