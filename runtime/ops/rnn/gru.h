// GRU: the gated recurrent unit layer, forward, reverse or bidirectional.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGRU(const KernelInit& init);

}  // namespace ptq
