// ReduceL2 kernel: the shared reduction kernel with ReduceKind::kL2.
#include "runtime/ops/reduction/reduce_l2.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceL2(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kL2); }

}  // namespace ptq
