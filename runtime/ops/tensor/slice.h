// Slice: a strided sub-range of a tensor along some axes (numpy basic slicing).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSlice(const KernelInit& init);

}  // namespace ptq
