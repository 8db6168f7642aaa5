// ReduceLogSumExp kernel: the shared reduction kernel with ReduceKind::kLogSumExp.
#include "runtime/ops/reduction/reduce_log_sum_exp.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceLogSumExp(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kLogSumExp); }

}  // namespace ptq
