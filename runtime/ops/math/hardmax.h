// Hardmax: 1 at the first maximum along an axis, 0 elsewhere.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeHardmax(const KernelInit& init);

}  // namespace ptq
