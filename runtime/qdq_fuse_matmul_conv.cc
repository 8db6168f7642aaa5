// QDQ fusion of DequantizeLinear -> MatMul / Gemm / Conv (-> QuantizeLinear, or a MatMul's bias Add) into one
// integer node.
#include <cstring>

#include "runtime/qdq_match.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

// Conv's or Gemm's bias: a float constant, or the DequantizeLinear of constants; *int_bias is set when the
// latter is int32 with zero point 0 and scale x_scale * w_scale[m] per channel (QLinearConv's bias).
bool BiasOf(const QdqIndex& index, const std::string& name, const DqNode& x, const DqNode& w, int64_t channels,
            const Tensor** int_bias, Tensor* float_bias) {
  if (const Tensor* b = index.Constant(name)) {
    if (b->dtype() != DataType::kFloat || b->size() != channels || b->rank() != 1) return false;
    *float_bias = *b;
    return true;
  }
  const size_t p = index.Producer(name);
  if (p == QdqIndex::kNone) return false;
  const Node& n = index.graph().nodes[p];
  if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() < 2) return false;
  const Tensor* q = index.Constant(n.inputs[0]);
  const Tensor* scale = index.Constant(n.inputs[1]);
  const bool has_zp = n.inputs.size() > 2 && !n.inputs[2].empty();
  const Tensor* zp = has_zp ? index.Constant(n.inputs[2]) : nullptr;
  if (!q || !scale || q->dtype() != DataType::kInt32 || q->size() != channels || q->rank() != 1 ||
      scale->dtype() != DataType::kFloat) {
    return false;
  }
  if (scale->size() != 1 && scale->size() != channels) return false;
  if (has_zp && (!zp || zp->dtype() != DataType::kInt32 || zp->size() != scale->size())) return false;
  *float_bias = Tensor(DataType::kFloat, {channels});
  bool exact = true;
  const float xs = x.scale->data<float>()[0];
  for (int64_t m = 0; m < channels; ++m) {
    const int64_t j = scale->size() == 1 ? 0 : m;
    const int32_t z = zp ? zp->data<int32_t>()[j] : 0;
    const float s = scale->data<float>()[j];
    float_bias->data<float>()[m] = DequantizeValue(q->data<int32_t>()[m], s, z);
    const float product = xs * w.scale->data<float>()[w.scale->size() == 1 ? 0 : m];
    exact = exact && z == 0 && std::memcmp(&s, &product, sizeof(s)) == 0;
  }
  if (exact) *int_bias = q;
  return true;
}

// A Gemm the MatMul kernels compute: Y = A * B (+ C), alpha = beta = 1, A not transposed, C absent or
// one value per column. *trans_b says whether B is stored [N, K].
bool PlainGemm(const Node& n, bool* trans_b) {
  if (n.attrs.GetInt("transA", 0) != 0 || n.attrs.GetFloat("alpha", 1.0f) != 1.0f ||
      n.attrs.GetFloat("beta", 1.0f) != 1.0f) {
    return false;
  }
  *trans_b = n.attrs.GetInt("transB", 0) != 0;
  return true;
}

// w [N, K] as [K, N] (8-bit).
Tensor TransposeWeight(const Tensor& w) {
  const int64_t N = w.dim(0), K = w.dim(1);
  Tensor t(w.dtype(), {K, N});
  const auto* src = static_cast<const uint8_t*>(w.raw());
  auto* dst = static_cast<uint8_t*>(t.raw());
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t k = 0; k < K; ++k) dst[k * N + n] = src[n * K + k];
  }
  return t;
}

// The QDQ form's bias of a MatMul with float readers: the Add that is the only reader of the MatMul's
// output `y`, its other input a bias BiasOf accepts (`channels` values along the last axis). Returns the
// Add's index, or kNone.
size_t BiasAddOf(const QdqIndex& index, const std::string& y, const DqNode& x, const DqNode& w, int64_t channels,
                 Tensor* float_bias) {
  const size_t a = index.OnlyReader(y);
  if (a == QdqIndex::kNone) return QdqIndex::kNone;
  const Node& add = index.graph().nodes[a];
  if (!add.domain.empty() || add.op_type != "Add" || add.inputs.size() != 2 || add.inputs[0] == add.inputs[1]) {
    return QdqIndex::kNone;
  }
  const Tensor* int_bias = nullptr;
  const std::string& other = add.inputs[0] == y ? add.inputs[1] : add.inputs[0];
  return BiasOf(index, other, x, w, channels, &int_bias, float_bias) ? a : QdqIndex::kNone;
}

}  // namespace

void FuseMatMulConvGroups(const QdqIndex& index, GraphEdit* out, QdqFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& n = g.nodes[i];
    if (!n.domain.empty() || (n.op_type != "MatMul" && n.op_type != "Conv" && n.op_type != "Gemm") ||
        n.inputs.size() < 2) {
      continue;
    }
    const bool conv = n.op_type == "Conv", gemm = n.op_type == "Gemm";
    bool trans_b = false;
    if (gemm && !PlainGemm(n, &trans_b)) continue;
    // The weight's channel axis: Conv's output channels, a MatMul's columns, a [N, K] Gemm weight's rows.
    const int64_t axis = conv || trans_b ? 0 : 1;
    DqNode x, w;
    if (!index.Dequantized(n.inputs[0], false, 0, &x) || !index.Dequantized(n.inputs[1], true, axis, &w)) continue;
    // A MatMul's B may be computed (attention: Q K^T, weights V) when quantized per tensor.
    const Tensor* wq = index.Constant(w.quantized());
    if (wq == nullptr ? conv || gemm || w.scale->size() != 1 : (conv ? wq->rank() < 3 : wq->rank() != 2)) continue;
    const int64_t channels = wq == nullptr ? 1 : wq->dim(axis);
    if (w.scale->size() != 1 && w.scale->size() != channels) continue;
    // The bias of a Conv or Gemm, as QLinearConv's int32 (when exact) and as float values.
    const std::string bias = !(conv || gemm) || n.inputs.size() < 3 ? "" : n.inputs[2];
    const Tensor* int_bias = nullptr;
    Tensor float_bias;
    if (!bias.empty() && !BiasOf(index, bias, x, w, channels, &int_bias, &float_bias)) continue;
    std::string w_name = w.quantized();
    if (trans_b) w_name = out->AddConstant(w_name + "/transposed", TransposeWeight(*wq));
    const size_t q = index.OnlyQuantizeReader(n.outputs[0]);
    // QLinearMatMul has no bias; QLinearConv takes the exact int32 one.
    const bool quantized = q != QdqIndex::kNone && (bias.empty() || (conv && int_bias != nullptr));
    Node fused;
    if (conv) fused.attrs = n.attrs;
    if (quantized) {
      const Node& qn = g.nodes[q];
      fused.op_type = conv ? "QLinearConv" : "QLinearMatMul";
      fused.inputs = {x.quantized(), x.node->inputs[1], x.node->inputs[2], w_name,
                      w.node->inputs[1], w.node->inputs[2], qn.inputs[1], qn.inputs[2]};
      if (int_bias) fused.inputs.push_back(g.nodes[index.Producer(bias)].inputs[0]);
      fused.outputs = {qn.outputs[0]};
      out->Replace(i, std::move(fused));
      out->Drop(q);
      ++count->quantized_output;
    } else {
      fused.domain = kFusedDomain;
      fused.op_type = conv ? "ConvIntegerToFloat" : "MatMulIntegerToFloat";
      fused.inputs = {x.quantized(), w_name, x.node->inputs[1], w.node->inputs[1], x.node->inputs[2], w.node->inputs[2]};
      // A MatMul of a constant weight takes the Add of its bias too: the fused node adds the same float
      // values to the same products, as the Add did (float addition commutes).
      const size_t add = conv || gemm || wq == nullptr ? QdqIndex::kNone : BiasAddOf(index, n.outputs[0], x, w, channels, &float_bias);
      if (!bias.empty() || add != QdqIndex::kNone) {
        fused.inputs.push_back(out->AddConstant(n.outputs[0] + "/fused_bias", float_bias));
      }
      fused.outputs = {add == QdqIndex::kNone ? n.outputs[0] : g.nodes[add].outputs[0]};
      if (add != QdqIndex::kNone) out->Drop(add);
      out->Replace(i, std::move(fused));
      ++count->float_output;
    }
  }
}

}  // namespace ptq
