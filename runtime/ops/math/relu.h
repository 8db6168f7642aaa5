// Relu: Y = max(X, 0) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeRelu(const KernelInit& init);

}  // namespace ptq
