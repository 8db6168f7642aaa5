// EyeLike: a 2-D tensor of the input's shape with ones on the k-th diagonal.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeEyeLike(const KernelInit& init);

}  // namespace ptq
