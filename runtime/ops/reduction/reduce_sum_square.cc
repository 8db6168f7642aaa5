// ReduceSumSquare kernel: the shared reduction kernel with ReduceKind::kSumSquare.
#include "runtime/ops/reduction/reduce_sum_square.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceSumSquare(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kSumSquare); }

}  // namespace ptq
