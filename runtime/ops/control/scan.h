// Scan: runs `body` once per position along the scan axis of its scan inputs, threading state
// variables through and stacking per-iteration scan outputs.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeScan(const KernelInit& init);

}  // namespace ptq
