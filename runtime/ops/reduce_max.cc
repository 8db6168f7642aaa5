// ReduceMax kernel: the shared reduction kernel with ReduceKind::kMax.
#include "runtime/ops/reduce_max.h"

#include "runtime/ops/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceMax(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kMax); }

}  // namespace ptq
