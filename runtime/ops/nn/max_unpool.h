// MaxUnpool: scatters pooled values back to the positions MaxPool's indices recorded.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMaxUnpool(const KernelInit& init);

}  // namespace ptq
