// Split: cuts a tensor into parts along one axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSplit(const KernelInit& init);

}  // namespace ptq
