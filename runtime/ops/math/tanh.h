// Tanh: Y = tanh(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTanh(const KernelInit& init);

}  // namespace ptq
