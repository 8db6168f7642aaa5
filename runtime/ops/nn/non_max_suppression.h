// NonMaxSuppression: per batch and class, the boxes kept by greedy IoU suppression in score order.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeNonMaxSuppression(const KernelInit& init);

}  // namespace ptq
