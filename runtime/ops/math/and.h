// And: C = A && B for bool tensors, with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeAnd(const KernelInit& init);

}  // namespace ptq
