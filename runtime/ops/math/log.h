// Log: Y = ln(X) element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLog(const KernelInit& init);

}  // namespace ptq
