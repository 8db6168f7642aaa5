// SpaceToDepth: moves spatial blocks into channels (NCHW).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSpaceToDepth(const KernelInit& init);

}  // namespace ptq
