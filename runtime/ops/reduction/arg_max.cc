// ArgMax kernel: the shared arg-reduction kernel selecting maxima.
#include "runtime/ops/reduction/arg_max.h"

#include "runtime/ops/reduction/arg_reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeArgMax(const KernelInit& init) { return MakeArgReduceKernel(init, /*max=*/true); }

}  // namespace ptq
