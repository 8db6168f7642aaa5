// Gather: picks slices along one axis by index (numpy take).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGather(const KernelInit& init);

}  // namespace ptq
