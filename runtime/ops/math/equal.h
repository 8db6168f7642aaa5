// Equal: C = (A == B) as bool, with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeEqual(const KernelInit& init);

}  // namespace ptq
