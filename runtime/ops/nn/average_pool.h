// AveragePool: the mean over each sliding window.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// X [N, C, D1..Dn] with n in 1..3; float32, float64, float16, bfloat16 (computed in float32).
// Attributes auto_pad, ceil_mode, count_include_pad, dilations, kernel_shape (required), pads,
// strides. The divisor counts the taps inside X, or with count_include_pad = 1 the taps inside the
// padded extent [-pad_begin, D + pad_end) (taps beyond it, which ceil_mode can add, never count).
// Opsets 1-21.
std::unique_ptr<Kernel> MakeAveragePool(const KernelInit& init);

}  // namespace ptq
