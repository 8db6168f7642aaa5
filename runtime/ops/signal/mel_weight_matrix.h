// MelWeightMatrix: triangular mel filters mapping DFT bins to mel bins (audio front ends).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMelWeightMatrix(const KernelInit& init);

}  // namespace ptq
