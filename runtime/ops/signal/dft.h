// DFT (opset 17): the discrete Fourier transform of real or complex signals along one axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeDFT(const KernelInit& init);

}  // namespace ptq
