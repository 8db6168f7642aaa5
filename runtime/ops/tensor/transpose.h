// Transpose: permutes the dimensions (default perm reverses them).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTranspose(const KernelInit& init);

}  // namespace ptq
