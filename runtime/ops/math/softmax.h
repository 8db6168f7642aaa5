// Softmax: Y = e^(X - max) / sum(e^(X - max)) along an axis; the kernel is shared with LogSoftmax.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeSoftmax(const KernelInit& init);

// The Softmax kernel, or LogSoftmax's when `log`. Opset >= 13: along attribute 'axis' (default
// -1). Before 13: the input is seen as 2-D [prod(shape[:axis]), prod(shape[axis:])] (axis default
// 1) and each row of that matrix is one softmax.
std::unique_ptr<Kernel> MakeSoftmaxKernel(const KernelInit& init, bool log);

}  // namespace ptq
