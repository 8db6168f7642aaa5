// ReduceMax kernel: the shared reduction kernel with ReduceKind::kMax.
#include "runtime/ops/reduction/reduce_max.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceMax(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kMax); }

}  // namespace ptq
