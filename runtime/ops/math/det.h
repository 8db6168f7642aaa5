// Det: determinants of square matrices in the last two axes.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeDet(const KernelInit& init);

}  // namespace ptq
