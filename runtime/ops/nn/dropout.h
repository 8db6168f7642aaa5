// Dropout at inference: output = input, optional mask of all true.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeDropout(const KernelInit& init);

}  // namespace ptq
