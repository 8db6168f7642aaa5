// LessOrEqual: C = (A <= B) as bool, with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLessOrEqual(const KernelInit& init);

}  // namespace ptq
