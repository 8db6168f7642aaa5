// MeanVarianceNormalization: (X - mean) / std over the given axes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMeanVarianceNormalization(const KernelInit& init);

}  // namespace ptq
