// Round: Y = X rounded to the nearest integer, ties to even, element-wise.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeRound(const KernelInit& init);

}  // namespace ptq
