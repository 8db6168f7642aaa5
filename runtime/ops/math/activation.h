// The activation family with scalar attributes: Elu, Selu, Celu, ThresholdedRelu, Shrink, Softsign.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeElu(const KernelInit& init);
std::unique_ptr<Kernel> MakeSelu(const KernelInit& init);
std::unique_ptr<Kernel> MakeCelu(const KernelInit& init);
std::unique_ptr<Kernel> MakeThresholdedRelu(const KernelInit& init);
std::unique_ptr<Kernel> MakeShrink(const KernelInit& init);
std::unique_ptr<Kernel> MakeSoftsign(const KernelInit& init);

}  // namespace ptq
