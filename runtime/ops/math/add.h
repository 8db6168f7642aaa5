// Add: C = A + B with numpy broadcasting (integers wrap on overflow).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeAdd(const KernelInit& init);

}  // namespace ptq
