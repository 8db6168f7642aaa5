// Trilu: keeps the upper or lower triangle (offset by k) of the last two dimensions.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTrilu(const KernelInit& init);

}  // namespace ptq
