// GatherElements: picks single elements along one axis by an index tensor of the output's shape.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGatherElements(const KernelInit& init);

}  // namespace ptq
