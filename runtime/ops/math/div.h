// Div: C = A / B with numpy broadcasting; integer division truncates toward zero.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeDiv(const KernelInit& init);

}  // namespace ptq
