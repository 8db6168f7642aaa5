// LRN: local response normalization across channels (AlexNet, GoogLeNet).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLRN(const KernelInit& init);

}  // namespace ptq
