// ReduceSum kernel: the shared reduction kernel with ReduceKind::kSum.
#include "runtime/ops/reduction/reduce_sum.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceSum(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kSum); }

}  // namespace ptq
