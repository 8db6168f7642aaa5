// Upsample (opsets 7-9): nearest or linear upsampling by per-axis scales >= 1.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeUpsample(const KernelInit& init);

}  // namespace ptq
