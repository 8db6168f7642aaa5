// GlobalMaxPool: the maximum over all spatial positions of each (n, c) plane.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// X [N, C, D1..Dn] (rank >= 2); float32, float64, float16, bfloat16, int8, uint8.
// Y [N, C, 1, .., 1] with X's rank. Opsets 1-21.
std::unique_ptr<Kernel> MakeGlobalMaxPool(const KernelInit& init);

}  // namespace ptq
