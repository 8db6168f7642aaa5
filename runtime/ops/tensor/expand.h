// Expand: broadcasts the input to a shape (numpy-style, in both directions).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeExpand(const KernelInit& init);

}  // namespace ptq
