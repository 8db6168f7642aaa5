// ReduceMean kernel: the shared reduction kernel with ReduceKind::kMean.
#include "runtime/ops/reduction/reduce_mean.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceMean(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kMean); }

}  // namespace ptq
