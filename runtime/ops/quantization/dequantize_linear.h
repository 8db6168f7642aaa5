// DequantizeLinear (opsets 10, 13, 19, 21): y = (x - x_zero_point) * x_scale.
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/kernel.h"
#include "runtime/tensor.h"

namespace ptq {

struct DequantizeLinearAttrs {
  int opset = 21;
  int64_t axis = 1;        // opset >= 13
  int64_t block_size = 0;  // opset >= 21; > 0 selects blocked quantization
};

// x: int8, uint8, int32 (any opset); int16, uint16, int4, uint4 (opset >= 21). An int32 x takes
// no zero point, or one that is all 0. x_scale: float32 (float16 / bfloat16 from opset 19); y has
// x_scale's type, computed in float32 and rounded to it. Granularity: see quant_axis.h.
Tensor DequantizeLinear(const Tensor& x, const Tensor& x_scale, const Tensor* x_zero_point,
                        const DequantizeLinearAttrs& attrs);

std::unique_ptr<Kernel> MakeDequantizeLinear(const KernelInit& init);

}  // namespace ptq
