// ConstantOfShape: a tensor of a given shape filled with one value.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeConstantOfShape(const KernelInit& init);

}  // namespace ptq
