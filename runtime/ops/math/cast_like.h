// CastLike: input converted element-wise to the type of input 'target_type' (rules of Cast).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCastLike(const KernelInit& init);

}  // namespace ptq
