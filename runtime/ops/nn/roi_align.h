// RoiAlign: average- or max-pooled bilinear samples of each region of interest (Mask R-CNN heads).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeRoiAlign(const KernelInit& init);

}  // namespace ptq
