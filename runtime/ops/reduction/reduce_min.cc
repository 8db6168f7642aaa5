// ReduceMin kernel: the shared reduction kernel with ReduceKind::kMin.
#include "runtime/ops/reduction/reduce_min.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceMin(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kMin); }

}  // namespace ptq
