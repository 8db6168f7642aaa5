// LogSoftmax kernel: the Softmax kernel in its log form.
#include "runtime/ops/log_softmax.h"

#include "runtime/ops/softmax.h"

namespace ptq {

std::unique_ptr<Kernel> MakeLogSoftmax(const KernelInit& init) { return MakeSoftmaxKernel(init, /*log=*/true); }

}  // namespace ptq
