// OneHot: each index becomes a vector of depth elements, on_value at the index and off_value elsewhere.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeOneHot(const KernelInit& init);

}  // namespace ptq
