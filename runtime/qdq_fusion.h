// Fused execution of QDQ models: DequantizeLinear -> op (-> QuantizeLinear) groups become one integer
// node, as ONNX Runtime fuses them, so that the QDQ form runs on the int8 kernels.
#pragma once

#include "runtime/graph.h"

namespace ptq {

// How many groups FuseQdqGroups replaced, by the form they took.
struct QdqFusionCount {
  int quantized_output = 0;  // -> QLinearMatMul / QLinearConv
  int float_output = 0;      // -> ptq.fused MatMulIntegerToFloat / ConvIntegerToFloat
  int tables = 0;            // -> ptq.fused LookupTable
  int binary = 0;            // -> ptq.fused QLinearAdd / QLinearMul
  int binary_outputs = 0;    // float Add / Mul -> QuantizeLinear -> ptq.fused AddQuantizeLinear / MulQuantizeLinear
  int conv_outputs = 0;      // ptq.fused ConvIntegerToFloat -> QuantizeLinear -> the convolution with y_scale
  int pools = 0;             // -> ptq.fused QLinearAveragePool / QLinearGlobalAveragePool
  int integer_outputs = 0;   // MatMulInteger [+ Add] -> DequantizeLinear -> ptq.fused MatMulIntegerToFloat
  int movement = 0;          // DequantizeLinear -> Transpose / Reshape / ... -> QuantizeLinear -> the op on 8 bits

  int total() const {
    return quantized_output + float_output + tables + binary + binary_outputs + conv_outputs + pools + integer_outputs +
           movement;
  }
};

// Returns `graph` with every group of this form replaced (the main graph only, not subgraphs):
//   x = DequantizeLinear(x_q, scalar scale, scalar 8-bit zero point)
//   w = DequantizeLinear(constant 8-bit w_q, constant scale and zero point per tensor or per output
//       channel: axis 1 of a 2-D MatMul weight, axis 0 of a Conv weight), or for MatMul a computed
//       w_q (attention's K^T and V) with scalar scale and zero point
//   y = MatMul(x, w), Gemm(x, w[, b]) (alpha = beta = 1, x not transposed; a transposed w, per row, is
//       stored transposed once) or Conv(x, w[, b]), with b a float constant or the DequantizeLinear of
//       constants
// When y's only reader is QuantizeLinear(y, scalar scale, scalar 8-bit zero point) and y is no graph
// output, the group becomes QLinearMatMul / QLinearConv writing the QuantizeLinear's output (for Conv,
// only when b is absent or dequantizes int32 with zero point 0 and scale x_scale * w_scale[m]: that
// int32 is QLinearConv's bias). Otherwise y = MatMulIntegerToFloat / ConvIntegerToFloat (integer_to_float.h).
// And every DequantizeLinear(x_q, scalar scale and zero point) -> element-wise unary op (Relu, Sigmoid,
// Tanh, HardSwish, Erf, Clip with constant bounds, ...) -> QuantizeLinear(scalar scale and zero point)
// on 8-bit values becomes LookupTable(x_q, table): the table holds the literal evaluation of the three
// nodes for each of the 256 input values, so the result is exact by construction.
// And DequantizeLinear(a), DequantizeLinear(b) (scalar parameters) -> Add / Mul -> QuantizeLinear
// becomes QLinearAdd / QLinearMul: the same float arithmetic as the literal nodes, element by element on
// the 8-bit tensors, so the result is bit-identical (ops/quantization/qlinear_binary.h).
// And DequantizeLinear -> AveragePool / GlobalAveragePool -> QuantizeLinear (same 8-bit type) becomes
// QLinearAveragePool / QLinearGlobalAveragePool: exact integer window sums, requantized once (within one
// unit of the literal float sum; ops/quantization/qlinear_average_pool.h).
// And the QOperator form's MatMulInteger(a, constant 2-D b) [-> Add(constant int32 bias)] ->
// DequantizeLinear(scale per tensor or per column, axis -1; zero point 0), or MatMulInteger(a, computed b)
// -> DequantizeLinear(one scale), becomes MatMulIntegerToFloat with a_scale 1, b_scale the
// DequantizeLinear's and int_bias: float(acc + bias) * scale, the same bits.
// And DequantizeLinear -> Transpose / Reshape / Squeeze / Unsqueeze / Flatten -> QuantizeLinear whose
// QuantizeLinear gives back each of the 256 values the DequantizeLinear makes (the same scale and zero
// point) becomes the op on the 8-bit tensor: exact.
// DequantizeLinear nodes left without readers are removed; every other tensor keeps its name and value
// within the rounding described in README ("QDQ execution"): the 8-bit outputs differ from the literal
// float evaluation by at most one unit, where the float sum rounds across a .5 boundary.
Graph FuseQdqGroups(const Graph& graph, QdqFusionCount* count = nullptr);

// Returns `graph` with every float Add / Mul (float32 or int32 tensors, numpy broadcasting; not an opset-6
// broadcast by attribute) whose only reader is QuantizeLinear (scalar constant scale, 8-bit zero point; the Add /
// Mul output no graph output) replaced by AddQuantizeLinear / MulQuantizeLinear, which quantizes each block of
// the float result while in L1 instead of writing it out and reading it back: the literal bits
// (ops/quantization/binary_quantize_linear.h). Run after the float fusions (float_fusion.h), so that the Mul
// of a SiLU or GELU and the residual Add of a convolution go to those first; adds to count->binary_outputs.
Graph FuseBinaryOutputGroups(const Graph& graph, QdqFusionCount* count);

// Returns `graph` with every ptq.fused ConvIntegerToFloat (with its fused activation and residual) whose only
// reader is QuantizeLinear (scalar constant scale, 8-bit zero point; the convolution's output no graph output)
// given the QuantizeLinear's scale and zero point as inputs 8 and 9 and its output: each block of the float
// output is quantized by the thread that stored it while in cache, the bits of the two nodes
// (ops/quantization/integer_to_float.h). Run last, after the channels-last layout, which then has seen the
// two nodes as it always did; adds to count->conv_outputs.
Graph FuseConvOutputGroups(const Graph& graph, QdqFusionCount* count);

}  // namespace ptq
