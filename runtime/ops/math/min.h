// Min: element-wise minimum of one or more inputs with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMin(const KernelInit& init);

}  // namespace ptq
