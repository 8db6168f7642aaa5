// QLinearAveragePool / QLinearGlobalAveragePool ("ptq.fused", made by the session from DequantizeLinear ->
// AveragePool / GlobalAveragePool -> QuantizeLinear groups; runtime/qdq_fusion.h).
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: X (uint8 or int8), x_scale, x_zero_point, y_scale, y_zero_point (scalars; y's type is x's);
// attributes those of AveragePool (the global form has none). For each output
//   acc = sum over the window's taps inside X of (x - x_zero_point)      (exact, in int32)
//   y = RequantizeValue(acc, x_scale / (count * y_scale), y_zero_point)   (quant_math.h)
// with count AveragePool's divisor (taps inside X, or inside the padded extent when count_include_pad;
// the plane's size for the global form), x_scale / (count * y_scale) evaluated in float32 left to right
// after the product. The literal nodes sum dequantized floats; the two differ by at most one unit,
// where the float sum's rounding crosses a .5 boundary.
std::unique_ptr<Kernel> MakeQLinearAveragePool(const KernelInit& init);
std::unique_ptr<Kernel> MakeQLinearGlobalAveragePool(const KernelInit& init);

}  // namespace ptq
