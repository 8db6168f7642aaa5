// LogSoftmax kernel: the Softmax kernel in its log form.
#include "runtime/ops/math/log_softmax.h"

#include "runtime/ops/math/softmax.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLogSoftmax(const KernelInit& init) { return MakeSoftmaxKernel(init, /*log=*/true); }

}  // namespace ptq
