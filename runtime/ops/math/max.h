// Max: element-wise maximum of one or more inputs with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMax(const KernelInit& init);

}  // namespace ptq
