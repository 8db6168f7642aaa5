// BatchNormalization in inference form: Y = scale * (X - mean) / sqrt(var + epsilon) + B per channel
// (axis 1), with the running mean and variance given as inputs.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeBatchNormalization(const KernelInit& init);

}  // namespace ptq
