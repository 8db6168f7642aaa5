// Loop: runs `body` while the trip count and the condition allow, threading loop-carried values
// through the iterations and stacking per-iteration scan outputs.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLoop(const KernelInit& init);

}  // namespace ptq
