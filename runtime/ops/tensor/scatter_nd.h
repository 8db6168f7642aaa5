// ScatterND: a copy of data with slices at the positions of an index tensor replaced by (or, with
// reduction, combined with) updates.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeScatterND(const KernelInit& init);

}  // namespace ptq
