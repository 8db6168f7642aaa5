// ArgMin kernel: the shared arg-reduction kernel selecting minima.
#include "runtime/ops/reduction/arg_min.h"

#include "runtime/ops/reduction/arg_reduce.h"

namespace ptq {

std::unique_ptr<Kernel> MakeArgMin(const KernelInit& init) { return MakeArgReduceKernel(init, /*max=*/false); }

}  // namespace ptq
