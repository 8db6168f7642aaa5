// GridSample: samples a 4-D input at the normalized (x, y) positions of a grid (spatial transformers).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGridSample(const KernelInit& init);

}  // namespace ptq
