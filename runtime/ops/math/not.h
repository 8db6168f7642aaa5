// Not: Y = !X for a bool tensor.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeNot(const KernelInit& init);

}  // namespace ptq
