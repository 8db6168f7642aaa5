// Resize (opsets 10-21): nearest or linear resampling to given scales or sizes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeResize(const KernelInit& init);

}  // namespace ptq
