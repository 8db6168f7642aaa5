// Sigmoid: Y = 1 / (1 + e^-X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSigmoid(const KernelInit& init);

}  // namespace ptq
