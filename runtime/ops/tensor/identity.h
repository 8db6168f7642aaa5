// Identity: the input itself (shares its buffer).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeIdentity(const KernelInit& init);

}  // namespace ptq
