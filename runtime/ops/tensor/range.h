// Range: the 1-D sequence start, start + delta, ... up to (excluding) limit.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeRange(const KernelInit& init);

}  // namespace ptq
