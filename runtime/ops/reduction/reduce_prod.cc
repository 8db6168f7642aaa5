// ReduceProd kernel: the shared reduction kernel with ReduceKind::kProd.
#include "runtime/ops/reduction/reduce_prod.h"

#include "runtime/ops/reduction/reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeReduceProd(const KernelInit& init) { return MakeReduceKernel(init, ReduceKind::kProd); }

}  // namespace ptq
