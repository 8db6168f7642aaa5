// Sin: Y = sin(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSin(const KernelInit& init);

}  // namespace ptq
