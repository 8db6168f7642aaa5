// FuseBatchNorms: a BatchNormalization with the Add of a per-channel constant that alone feeds it, the Relu or Clip
// that alone reads it, or the QuantizeLinear that alone reads the result, becomes one ptq.fused BatchNormalization:
// one pass over the tensor where each node made its own.
#include "runtime/activation_fusion.h"
#include "runtime/float_fusion.h"
#include "runtime/ops/nn/batch_normalization.h"
#include "runtime/pattern_match.h"

namespace ptq {
namespace {

// Whether BatchNormalization n runs in inference form on constant float32 parameters (the fused kernel's case).
bool InferenceBatchNorm(const GraphIndex& index, const Node& n) {
  if (!n.domain.empty() || n.op_type != "BatchNormalization" || n.inputs.size() != 5 || n.outputs.size() != 1 ||
      n.attrs.GetInt("spatial", 1) != 1 || n.attrs.GetInt("training_mode", 0) != 0) {
    return false;
  }
  for (size_t i = 1; i < 5; ++i) {
    const Tensor* p = index.Constant(n.inputs[i]);
    if (p == nullptr || p->dtype() != DataType::kFloat) return false;
  }
  return true;
}

// The Add that writes x and only x's BatchNormalization reads, of a computed tensor and a float32 constant of
// shape [C, 1, 1] or [1, C, 1, 1] (a bias per channel of a 4-D tensor: ConvTranspose's without its bias input, as
// Paddle2ONNX writes it): its index, with the computed operand in *in and the constant in *bias; else kNone.
size_t ChannelBiasAdd(const GraphIndex& index, const GraphEdit& out, const std::string& x, int64_t channels,
                      std::string* in, std::string* bias) {
  const size_t p = index.Producer(x);
  if (p == GraphIndex::kNone || out.Changed(p) || index.OnlyReader(x) == GraphIndex::kNone) return GraphIndex::kNone;
  const Node& add = index.graph().nodes[p];
  if (!add.domain.empty() || add.op_type != "Add" || add.inputs.size() != 2 || add.outputs.size() != 1) {
    return GraphIndex::kNone;
  }
  for (int k = 0; k < 2; ++k) {
    const Tensor* c = index.Constant(add.inputs[static_cast<size_t>(k)]);
    if (c == nullptr || index.Constant(add.inputs[static_cast<size_t>(1 - k)]) != nullptr) continue;
    const Shape& s = c->shape();
    const bool per_channel = c->dtype() == DataType::kFloat && c->size() == channels &&
                             ((s.size() == 3 && s[1] == 1 && s[2] == 1) ||
                              (s.size() == 4 && s[0] == 1 && s[2] == 1 && s[3] == 1));
    if (!per_channel) return GraphIndex::kNone;
    *in = add.inputs[static_cast<size_t>(1 - k)];
    *bias = add.inputs[static_cast<size_t>(k)];
    return p;
  }
  return GraphIndex::kNone;
}

}  // namespace

void FuseBatchNorms(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    const Node& bn = g.nodes[i];
    if (out->Changed(i) || !InferenceBatchNorm(index, bn)) continue;
    const int64_t channels = index.Constant(bn.inputs[1])->size();
    std::string x = bn.inputs[0], bias;
    const size_t add = ChannelBiasAdd(index, *out, x, channels, &x, &bias);
    std::vector<std::string> last = bn.outputs;
    size_t act = index.OnlyReader(last[0]);
    float lo = 0.0f, hi = 0.0f;
    if (act != GraphIndex::kNone &&
        (out->Changed(act) || g.nodes[act].inputs.empty() || g.nodes[act].inputs[0] != last[0] ||
         !ActivationBounds(g.nodes[act], g, &lo, &hi))) {
      act = GraphIndex::kNone;
    }
    if (act != GraphIndex::kNone) last = g.nodes[act].outputs;
    const size_t q = last.size() == 1 ? QuantizeReader(index, *out, last[0]) : GraphIndex::kNone;
    if (add == GraphIndex::kNone && act == GraphIndex::kNone && q == GraphIndex::kNone) continue;
    // X is float32 (the fused kernel's only type) when the Add reads it with a float32 constant, or below opset 15,
    // where X has the parameters' type; from 15 on X may be float16 with float32 parameters.
    const auto opset = g.opsets.find("");
    if (add == GraphIndex::kNone && (opset == g.opsets.end() || opset->second >= 15)) continue;
    Node f = bn;
    f.domain = kFusedDomain;
    f.inputs[0] = x;
    if (add != GraphIndex::kNone || q != GraphIndex::kNone) f.inputs.push_back(bias);  // "" when none
    if (q != GraphIndex::kNone) {
      f.inputs.push_back(g.nodes[q].inputs[1]);
      f.inputs.push_back(g.nodes[q].inputs[2]);
      last = g.nodes[q].outputs;
    }
    if (act != GraphIndex::kNone) SetActivation(&f, lo, hi);
    f.outputs = last;
    out->Replace(i, std::move(f));
    for (size_t d : {add, act, q}) {
      if (d != GraphIndex::kNone) out->Drop(d);
    }
    ++count->batch_norms;
  }
}

}  // namespace ptq
