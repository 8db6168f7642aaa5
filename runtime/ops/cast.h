// Cast: the input converted element-wise to the type given by attribute 'to'.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCast(const KernelInit& init);

}  // namespace ptq
