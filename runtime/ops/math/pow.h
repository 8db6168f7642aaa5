// Pow: Z = X ^ Y with numpy broadcasting; Y may have another numeric type than X.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakePow(const KernelInit& init);

}  // namespace ptq
