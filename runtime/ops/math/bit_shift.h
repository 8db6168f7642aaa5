// BitShift: element-wise logical shift of unsigned integers, with numpy broadcasting.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeBitShift(const KernelInit& init);

}  // namespace ptq
