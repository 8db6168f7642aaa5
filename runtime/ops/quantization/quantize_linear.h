// QuantizeLinear (opsets 10, 13, 19, 21): y = saturate(round_half_even(x / y_scale) + y_zero_point).
#pragma once

#include <cstdint>
#include <memory>

#include "runtime/kernel.h"
#include "runtime/ops/quantization/quantize_linear_rows.h"
#include "runtime/tensor.h"

namespace ptq {

struct QuantizeLinearAttrs {
  int opset = 21;
  int64_t axis = 1;          // opset >= 13
  int64_t block_size = 0;    // opset >= 21; > 0 selects blocked quantization
  int64_t output_dtype = 0;  // opset >= 21; a TensorProto.DataType code, 0 = from the zero point
};

// The output type: y_zero_point's type, else output_dtype, else uint8. Throws an input error when
// both are given and differ, when the type is not allowed at attrs.opset, and for float8 types
// (not supported by ptq). zero_point_type is kUndefined when there is no zero point.
DataType QuantizeLinearOutputType(DataType zero_point_type, const QuantizeLinearAttrs& attrs);

// x: float32, int32 (any opset), float16, bfloat16 (opset >= 19), computed in float32.
// y_scale: float32 (float16 / bfloat16 from opset 19). Granularity: see quant_axis.h.
Tensor QuantizeLinear(const Tensor& x, const Tensor& y_scale, const Tensor* y_zero_point,
                      const QuantizeLinearAttrs& attrs);

// A QuantizeLinear to 8 bits with one scale and zero point, as the session's fused nodes take it at their end.
struct Quantize8 {
  DataType type = DataType::kUint8;  // the zero point's
  QuantizeRunParams params;
};
// y_scale one float32, y_zero_point one uint8 or int8; else an input error naming `op`.
Quantize8 ReadQuantize8(const Tensor& y_scale, const Tensor& y_zero_point, const std::string& op);
// y[i] = QuantizeValue(x[i]) for i < n, y of q.type: QuantizeLinear's own loop (quantize_linear_rows.h).
void QuantizeRun8(const float* x, int64_t n, const Quantize8& q, void* y);

std::unique_ptr<Kernel> MakeQuantizeLinear(const KernelInit& init);

}  // namespace ptq
