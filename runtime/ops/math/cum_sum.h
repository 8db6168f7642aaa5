// CumSum: running sums along one axis (inclusive or exclusive, forward or reverse).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCumSum(const KernelInit& init);

}  // namespace ptq
