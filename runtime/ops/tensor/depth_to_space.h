// DepthToSpace: moves channel blocks into spatial blocks (NCHW).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeDepthToSpace(const KernelInit& init);

}  // namespace ptq
