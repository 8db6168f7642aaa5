// Tile: repeats the input along each axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTile(const KernelInit& init);

}  // namespace ptq
