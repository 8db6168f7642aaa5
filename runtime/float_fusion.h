// Fused execution of float patterns, as ONNX Runtime's graph optimizer fuses them: Conv -> Relu / Clip,
// Conv -> residual Add [-> Relu / Clip], LayerNorm and GELU written out op by op (what torch exports
// below opsets 17 and 20), SiLU, chains of element-wise ops with scalar constants.
#pragma once

#include "runtime/graph.h"
#include "runtime/graph_index.h"

namespace ptq {

// How many patterns FuseFloatPatterns replaced.
struct FloatFusionCount {
  int conv_activations = 0;  // -> ptq.fused FusedConv (Relu, Clip or SiLU)
  int conv_sums = 0;         // -> ptq.fused FusedConv with a residual input
  int layer_norms = 0;       // -> ptq.fused LayerNormalization
  int gelus = 0;             // -> ptq.fused Gelu
  int silus = 0;             // -> ptq.fused Silu
  int elementwise_chains = 0;  // -> ptq.fused ElementwiseChain
  int conv_chains = 0;         // element-wise chains that joined the ConvIntegerToFloat writing their input
  int batch_norms = 0;         // -> ptq.fused BatchNormalization with an Add before, a clamp or a QuantizeLinear after
  int scale_residuals = 0;     // -> ptq.fused ScaleResidual

  int total() const {
    return conv_activations + conv_sums + layer_norms + gelus + silus + elementwise_chains + conv_chains + batch_norms +
           scale_residuals;
  }
};

// Returns `graph` (the main graph only, not subgraphs) with each pattern below replaced by one node that
// writes the pattern's last output. The intermediate tensors are no longer computed (sessions whose
// observer must see every tensor do not fuse), and the results may differ from the op-by-op evaluation
// in the last bits of float32 (the tests name the tolerance).
Graph FuseFloatPatterns(const Graph& graph, FloatFusionCount* count = nullptr);

// The passes, one per file; each replaces the nodes of its matches in `out` (they match disjoint nodes).
// Conv whose output only a Relu or a Clip with constant float32 bounds reads -> FusedConv (activation_fusion.cc).
void FuseConvActivations(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// Float32 Conv whose output only an Add reads (the other operand z computed, not a constant), and that
// Add's output only a Relu or Clip with constant bounds, or anything else -> FusedConv(X, W, B, z) with
// the activation when there is one: the same bits as the nodes (conv_sum_fusion.cc).
void FuseConvSums(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// m = ReduceMean(x, last axis); d = x - m; v = ReduceMean(d * d or Pow(d, 2)); y = d / Sqrt(v + epsilon)
// [* scale] [+ bias], scale and bias constant vectors -> LayerNormalization(x, scale, bias, axis -1,
// epsilon) (layer_norm_fusion.cc).
void FuseLayerNorms(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// x * 0.5 * (1 + Erf(x / sqrt(2))) in torch's order and its commutations -> Gelu; and the tanh form
// x * 0.5 * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))) -> Gelu(approximate "tanh") (gelu_fusion.cc).
void FuseGelus(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// Mul(x, Sigmoid(x)), the Sigmoid read only there -> Silu (the same bits; silu_fusion.cc); when x is written
// by a float32 Conv with a constant weight and read only by the two, that Conv becomes a FusedConv with
// activation_silu instead (the same bits: the Silu kernel's arithmetic on each output).
void FuseSilus(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// Two or more Add / Sub / Mul / Div / Clip / Relu nodes, each reading the chain's one computed input X or the
// values of the nodes before it, and otherwise float32 constants of one value (rank 0 or 1), whose values but
// the last only the chain reads -> ElementwiseChain(X), with the QuantizeLinear (one constant scale and 8-bit
// zero point) that alone reads the last value as ElementwiseChain(X, y_scale, y_zero_point); or, when X is the
// float32 output of a ConvIntegerToFloat that only the chain reads, the convolution applies the chain (and the
// QuantizeLinear: its inputs y_scale and y_zero_point) to each block as it stores it. The same bits
// (elementwise_chain_fusion.cc). After the other passes, which take their nodes first.
void FuseElementwiseChains(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// BatchNormalization (inference, constant float32 parameters) with any of: the Add of a float32 constant of shape
// [C, 1, 1] or [1, C, 1, 1] that alone writes its input (a per-channel bias), the Relu or Clip with constant bounds
// that alone reads its output, the QuantizeLinear (one constant scale and 8-bit zero point) that alone reads the
// result -> ptq.fused BatchNormalization (ops/nn/batch_normalization.h): one pass, the same bits
// (batch_norm_fusion.cc). Before FuseElementwiseChains.
void FuseBatchNorms(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);
// Add(x, Mul(x, s)) in either operand order, the product read only by the Add -> ScaleResidual(x, s)
// (ops/math/scale_residual.h): one pass, the same values (bits but NaNs' signs; scale_residual_fusion.cc). After
// FuseElementwiseChains, which takes x + x * c for a scalar constant c.
void FuseScaleResiduals(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count);

}  // namespace ptq
