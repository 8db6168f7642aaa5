// Unique: the distinct elements (or slices along an axis) of a tensor, with where they occur.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeUnique(const KernelInit& init);

}  // namespace ptq
