// IsNaN and IsInf: bool tensors that classify float elements.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeIsNaN(const KernelInit& init);
std::unique_ptr<Kernel> MakeIsInf(const KernelInit& init);

}  // namespace ptq
