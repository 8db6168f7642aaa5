// Concat: joins tensors along one axis.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeConcat(const KernelInit& init);

}  // namespace ptq
