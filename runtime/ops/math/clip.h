// Clip: Y = min(max(X, min), max) element-wise; bounds from attributes or inputs by opset.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeClip(const KernelInit& init);

}  // namespace ptq
