// ReverseSequence: reverses the first sequence_lens[b] steps of each batch entry along the time axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReverseSequence(const KernelInit& init);

}  // namespace ptq
