// The kernel shared by ArgMax and ArgMin: int64 indices of the extreme elements along one axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Attributes: axis (default 0), keepdims (default 1), select_last_index (opset 12+, default 0:
// among equal extremes the first index, else the last). `max` selects ArgMax.
std::unique_ptr<Kernel> MakeArgReduceKernel(const KernelInit& init, bool max);

}  // namespace ptq
