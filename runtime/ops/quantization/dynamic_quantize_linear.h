// DynamicQuantizeLinear (opset 11): uint8 quantization with scale and zero point taken from x's range.
#pragma once

#include <memory>

#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace ptq {

struct DynamicQuantizeResult {
  Tensor y;             // uint8, x's shape
  Tensor y_scale;       // float32 scalar
  Tensor y_zero_point;  // uint8 scalar
};

// In float32, with qmin = 0, qmax = 255:
//   x_min = min(0, min(x)), x_max = max(0, max(x))        (NaN elements are left out)
//   y_scale = (x_max - x_min) / 255, or 1.0 when x_max == x_min (all-zero or empty x; as ONNX Runtime)
//   y_zero_point = saturate(round_half_even(qmin - x_min / y_scale))
//   y = saturate(round_half_even(x / y_scale) + y_zero_point)
// REQUIRES nothing of x but its type: float32 (an input error otherwise).
DynamicQuantizeResult DynamicQuantizeLinear(const Tensor& x);

std::unique_ptr<Kernel> MakeDynamicQuantizeLinear(const KernelInit& init);

}  // namespace ptq
