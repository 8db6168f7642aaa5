// LayerNormalization (opset 17): normalizes each row over the trailing axes from 'axis' to mean 0
// and variance 1, then applies Scale and the optional bias B.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLayerNormalization(const KernelInit& init);

}  // namespace ptq
