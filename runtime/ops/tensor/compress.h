// Compress: the slices of a tensor (or the elements of its flattened form) where a bool mask is true.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCompress(const KernelInit& init);

}  // namespace ptq
