// Kernel list of the quantization ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/quantization/binary_quantize_linear.h"
#include "runtime/ops/quantization/conv_integer.h"
#include "runtime/ops/quantization/conv_integer_to_float.h"
#include "runtime/ops/quantization/dequantize_linear.h"
#include "runtime/ops/quantization/dynamic_quantize_linear.h"
#include "runtime/ops/quantization/lookup_table.h"
#include "runtime/ops/quantization/matmul_integer.h"
#include "runtime/ops/quantization/matmul_integer_to_float.h"
#include "runtime/ops/quantization/qlinear_average_pool.h"
#include "runtime/ops/quantization/qlinear_binary.h"
#include "runtime/ops/quantization/qlinear_conv.h"
#include "runtime/ops/quantization/qlinear_matmul.h"
#include "runtime/ops/quantization/quantize_linear.h"

namespace ptq {

void RegisterQuantizationOps(OpRegistry& r) {
  r.Add({"", "MatMulInteger", 10, 21, MakeMatMulInteger});
  r.Add({"", "QLinearMatMul", 10, 21, MakeQLinearMatMul});
  r.Add({"", "ConvInteger", 10, 21, MakeConvInteger});
  r.Add({"", "QLinearConv", 10, 21, MakeQLinearConv});
  r.Add({"", "QuantizeLinear", 10, 21, MakeQuantizeLinear});
  r.Add({"", "DequantizeLinear", 10, 21, MakeDequantizeLinear});
  r.Add({"", "DynamicQuantizeLinear", 11, 21, MakeDynamicQuantizeLinear});
  // The session's fused forms of QDQ groups (runtime/qdq_fusion.h); models never name this domain.
  r.Add({"ptq.fused", "MatMulIntegerToFloat", 1, 1, MakeMatMulIntegerToFloat});
  r.Add({"ptq.fused", "ConvIntegerToFloat", 1, 1, MakeConvIntegerToFloat});
  r.Add({"ptq.fused", "LookupTable", 1, 1, MakeLookupTable});
  // QLinearConv with channels_last (runtime/channels_last_layout.h).
  r.Add({"ptq.fused", "QLinearConv", 1, 1, MakeQLinearConv});
  r.Add({"ptq.fused", "QLinearAdd", 1, 1, MakeQLinearAdd});
  r.Add({"ptq.fused", "QLinearMul", 1, 1, MakeQLinearMul});
  r.Add({"ptq.fused", "AddQuantizeLinear", 1, 1, MakeAddQuantizeLinear});
  r.Add({"ptq.fused", "MulQuantizeLinear", 1, 1, MakeMulQuantizeLinear});
  r.Add({"ptq.fused", "QLinearAveragePool", 1, 1, MakeQLinearAveragePool});
  r.Add({"ptq.fused", "QLinearGlobalAveragePool", 1, 1, MakeQLinearGlobalAveragePool});
}

}  // namespace ptq
