// Where: output = condition ? X : Y with three-way numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeWhere(const KernelInit& init);

}  // namespace ptq
