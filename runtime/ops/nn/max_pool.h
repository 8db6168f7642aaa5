// MaxPool: the maximum over each sliding window, with the optional flat Indices of the maxima.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// X [N, C, D1..Dn] with n in 1..3; float32, float64, float16, bfloat16, int8, uint8. Attributes
// auto_pad, ceil_mode, dilations, kernel_shape (required), pads, storage_order, strides. Padding
// never wins. Output 1 (Indices, int64) holds the flat index of each maximum in X; with
// storage_order = 1 the spatial part of the index is column-major. A window with no tap inside X
// yields the type's lowest value and index -1. Ties keep the first tap in row-major order.
// Opsets 1-21.
std::unique_ptr<Kernel> MakeMaxPool(const KernelInit& init);

}  // namespace ptq
