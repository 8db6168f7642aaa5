// ScatterElements (and its deprecated opset-9 name Scatter): a copy of data with single elements,
// addressed by an index tensor along one axis, replaced by (or combined with) updates.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeScatterElements(const KernelInit& init);
std::unique_ptr<Kernel> MakeScatter(const KernelInit& init);  // opsets 9-10, no reduction

}  // namespace ptq
