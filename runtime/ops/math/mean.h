// Mean: element-wise mean of one or more inputs with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMean(const KernelInit& init);

}  // namespace ptq
