// LeakyRelu: Y = X < 0 ? alpha * X : X element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLeakyRelu(const KernelInit& init);

}  // namespace ptq
