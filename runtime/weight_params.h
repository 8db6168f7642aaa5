// The quantizable ops' constant weights, decided in one place for calibration and the rewrite: which
// input holds the weight, along which axis it gets one scale per output channel, and its scales and
// zero points from its values.
#pragma once

#include <string>
#include <vector>

#include "runtime/quant_table.h"
#include "runtime/tensor.h"

namespace ptq {

// Which inputs of a quantizable op are quantized: its constant weight, and its activations.
struct QuantOpRule {
  int weight_input = -1;               // MatMul/Gemm/Conv: 1 (B, W); Gather: 0 (the table)
  std::vector<int> activation_inputs;  // MatMul/Gemm: 0 and 1 (when 1 is not constant); Conv: 0; Gather: none
};
// The rule of `op_type`, or nullptr when ptq does not quantize that op type.
const QuantOpRule* QuantRuleFor(const std::string& op_type);

// The axis of a weight of rank `rank` that indexes the op's output channels:
//   MatMul B [..., K, N] -> rank - 1; Gemm B -> 0 with transB (B is [N, K]), else 1; Conv W [M, C/g, ...] -> 0;
//   Gather's table -> -1 (rows are gathered, so one scale serves every row).
// -1 when the op takes no per-channel weight of that rank.
int64_t WeightChannelAxis(const std::string& op_type, bool trans_b, int64_t rank);

// A float weight's quantization: per channel along `axis` (>= 0) or per tensor (-1), each from the
// range of its finite values through ChooseQuantParams (quant_math.h). `range_min`/`range_max`, when
// given, receive the range over all channels. A weight without elements gets one per-tensor scale.
TensorQuant ChooseWeightQuant(const Tensor& w, int64_t axis, DataType dtype, bool symmetric,
                              float* range_min = nullptr, float* range_max = nullptr);

}  // namespace ptq
