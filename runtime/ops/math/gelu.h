// Gelu: Y = X * Phi(X), exact (erf) or tanh approximation (attribute 'approximate').
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeGelu(const KernelInit& init);

}  // namespace ptq
