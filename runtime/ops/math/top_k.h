// TopK: the k largest (or smallest) elements along an axis and their int64 indices.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeTopK(const KernelInit& init);

}  // namespace ptq
