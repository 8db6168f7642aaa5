// If: runs then_branch or else_branch, by a boolean scalar, and returns that branch's outputs.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeIf(const KernelInit& init);

}  // namespace ptq
