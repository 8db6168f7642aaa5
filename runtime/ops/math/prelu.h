// PRelu: Y = X < 0 ? slope * X : X, slope broadcast to X's shape.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakePRelu(const KernelInit& init);

}  // namespace ptq
