// ReduceLogSum kernel: the shared reduction kernel with ReduceKind::kLogSum.
#include "runtime/ops/reduction/reduce_log_sum.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceLogSum(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kLogSum); }

}  // namespace ptq
