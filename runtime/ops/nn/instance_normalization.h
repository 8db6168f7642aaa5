// InstanceNormalization: Y = scale * (X - mean) / sqrt(var + epsilon) + B with mean and variance of
// each (batch item, channel) over the spatial axes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeInstanceNormalization(const KernelInit& init);

}  // namespace ptq
