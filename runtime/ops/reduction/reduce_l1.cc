// ReduceL1 kernel: the shared reduction kernel with ReduceKind::kL1.
#include "runtime/ops/reduction/reduce_l1.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceL1(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kL1); }

}  // namespace ptq
