// Cast: the input converted element-wise to the type given by attribute 'to'.
#pragma once

#include <memory>

#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace ptq {

std::unique_ptr<Kernel> MakeCast(const KernelInit& init);

// x converted element-wise to type `to` by Cast's rules (see cast.cc); x itself when it already
// has that type. Throws an input error for types ptq cannot hold.
Tensor CastTensor(const Tensor& x, DataType to);

}  // namespace ptq
