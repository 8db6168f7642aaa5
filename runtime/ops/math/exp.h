// Exp: Y = e^X element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeExp(const KernelInit& init);

}  // namespace ptq
