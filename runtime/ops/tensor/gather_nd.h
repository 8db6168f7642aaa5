// GatherND: slices of data addressed by the tuples in the last axis of an index tensor.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGatherND(const KernelInit& init);

}  // namespace ptq
