// The window-function family of opset 17: HannWindow, HammingWindow, BlackmanWindow.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

std::unique_ptr<Kernel> MakeHannWindow(const KernelInit& init);
std::unique_ptr<Kernel> MakeHammingWindow(const KernelInit& init);
std::unique_ptr<Kernel> MakeBlackmanWindow(const KernelInit& init);

}  // namespace ptq
