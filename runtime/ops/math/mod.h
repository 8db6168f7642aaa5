// Mod: C = A mod B with numpy broadcasting; sign of B (fmod=0, integers) or of A (fmod=1).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeMod(const KernelInit& init);

}  // namespace ptq
