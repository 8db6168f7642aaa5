// LogSoftmax: Y = X - max - log(sum(e^(X - max))) along an axis (see softmax.h for the axis rules).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLogSoftmax(const KernelInit& init);

}  // namespace ptq
