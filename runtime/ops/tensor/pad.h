// Pad: grows (or, with negative pads, crops) each axis; modes constant, reflect, edge, wrap.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakePad(const KernelInit& init);

}  // namespace ptq
