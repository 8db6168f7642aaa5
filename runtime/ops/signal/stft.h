// STFT: the short-time Fourier transform of a batch of signals (windowed DFTs of overlapping frames).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSTFT(const KernelInit& init);

}  // namespace ptq
