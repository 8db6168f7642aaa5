// Silu (ptq.fused, made by the session from Mul(x, Sigmoid(x)); runtime/float_fusion.h): Y = X * Sigmoid(X).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// y = x * s with s the Sigmoid kernel's value of x: the same operations, so the same bits as the two nodes.
std::unique_ptr<Kernel> MakeSilu(const KernelInit& init);

// y[i] = the Silu kernel's value of x[i] for i < n (in place when y == x): what a FusedConv with
// activation_silu applies to its outputs, the same bits as the Silu node.
void SiluArray(const float* x, float* y, int64_t n);

}  // namespace ptq
