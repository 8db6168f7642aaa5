// Neg: Y = -X element-wise, for signed integer and float types.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeNeg(const KernelInit& init);

}  // namespace ptq
