// NonZero: the coordinates of the non-zero elements of a tensor, as in numpy.nonzero.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeNonZero(const KernelInit& init);

}  // namespace ptq
