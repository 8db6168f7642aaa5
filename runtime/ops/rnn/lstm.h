// LSTM: the long short-term memory layer, forward, reverse or bidirectional, with optional peepholes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLSTM(const KernelInit& init);

}  // namespace ptq
