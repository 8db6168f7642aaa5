// RNN: the simple (Elman) recurrent layer, forward, reverse or bidirectional.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeRNN(const KernelInit& init);

}  // namespace ptq
