// FuseLayerNorms: LayerNorm written out op by op (torch below opset 17) becomes one LayerNormalization.
#include <set>
#include <vector>

#include "runtime/float_fusion.h"
#include "runtime/pattern_match.h"

namespace ptq {
namespace {

// True when ReduceMean node n averages over the last axis only and keeps it (axes [-1] as attribute, or
// as a constant input from opset 18 on).
bool MeanOverLastAxis(const GraphIndex& index, const Node& n) {
  if (!n.domain.empty() || n.op_type != "ReduceMean" || n.outputs.size() != 1 || n.attrs.GetInt("keepdims", 1) != 1) {
    return false;
  }
  std::vector<int64_t> axes = n.attrs.GetInts("axes");
  if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
    const Tensor* a = index.Constant(n.inputs[1]);
    if (a == nullptr) return false;
    axes = a->ToInt64Vector();
  }
  return axes.size() == 1 && axes[0] == -1;
}

// A constant float32 vector LayerNormalization can take as Scale or B (it broadcasts to the last axis).
bool ParamConstant(const GraphIndex& index, const std::string& name) {
  const Tensor* t = index.Constant(name);
  return t != nullptr && t->dtype() == DataType::kFloat && t->rank() <= 1;
}

struct LayerNormMatch {
  std::vector<size_t> nodes;  // every node of the pattern, the ReduceMean of x first
  std::string x, scale, bias, y;
  float epsilon = 0.0f;
};

// The pattern starting at ReduceMean node i: m = ReduceMean(x); d = Sub(x, m); s = Pow(d, 2) or Mul(d, d);
// v = ReduceMean(s); e = Add(v, epsilon); r = Sqrt(e); n = Div(d, r); [n = Mul(n, scale)]; [n = Add(n, bias)].
bool Match(const GraphIndex& index, size_t i, LayerNormMatch* m) {
  const Graph& g = index.graph();
  const Node& mean = g.nodes[i];
  if (!MeanOverLastAxis(index, mean) || mean.inputs.empty()) return false;
  m->x = mean.inputs[0];
  m->nodes = {i};
  size_t at;
  const Node* sub = OnlyReaderNode(index, mean, &at);
  if (!sub || !sub->domain.empty() || sub->op_type != "Sub" || sub->inputs.size() != 2 || sub->inputs[0] != m->x ||
      sub->inputs[1] != mean.outputs[0]) {
    return false;
  }
  m->nodes.push_back(at);
  // d is read by the square and by the Div, nothing else.
  const std::string& d = sub->outputs[0];
  std::set<size_t> readers(index.Readers(d).begin(), index.Readers(d).end());
  if (readers.size() != 2 || readers.count(GraphIndex::kNone)) return false;
  const Node* square = nullptr;
  const Node* div = nullptr;
  size_t square_at = 0, div_at = 0;
  for (size_t r : readers) {
    const Node& n = g.nodes[r];
    std::string other;
    if (OtherOperand(n, "Div", d, false, &other)) {
      div = &n;
      div_at = r;
    } else if ((OtherOperand(n, "Pow", d, false, &other) && ScalarNear(index, other, 2.0)) ||
               (OtherOperand(n, "Mul", d, true, &other) && other == d)) {
      square = &n;
      square_at = r;
    }
  }
  if (!square || !div) return false;
  m->nodes.push_back(square_at);
  const Node* var = OnlyReaderNode(index, *square, &at);
  if (!var || !MeanOverLastAxis(index, *var) || var->inputs[0] != square->outputs[0]) return false;
  m->nodes.push_back(at);
  const Node* add = OnlyReaderNode(index, *var, &at);
  std::string eps;
  if (!add || !OtherOperand(*add, "Add", var->outputs[0], true, &eps) || !ScalarConstant(index, eps, &m->epsilon)) {
    return false;
  }
  m->nodes.push_back(at);
  const Node* sqrt = OnlyReaderNode(index, *add, &at);
  if (!sqrt || !sqrt->domain.empty() || sqrt->op_type != "Sqrt" || sqrt->outputs.size() != 1) return false;
  m->nodes.push_back(at);
  if (index.OnlyReader(sqrt->outputs[0]) != div_at || div->inputs[0] != d || div->inputs[1] != sqrt->outputs[0]) {
    return false;
  }
  m->nodes.push_back(div_at);
  m->y = div->outputs[0];
  const Node* mul = OnlyReaderNode(index, *div, &at);
  std::string param;
  if (mul && OtherOperand(*mul, "Mul", m->y, true, &param) && ParamConstant(index, param)) {
    m->scale = param;
    m->nodes.push_back(at);
    m->y = mul->outputs[0];
    const Node* bias = OnlyReaderNode(index, *mul, &at);
    if (bias && OtherOperand(*bias, "Add", m->y, true, &param) && ParamConstant(index, param)) {
      m->bias = param;
      m->nodes.push_back(at);
      m->y = bias->outputs[0];
    }
  }
  return true;
}

}  // namespace

void FuseLayerNorms(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    LayerNormMatch m;
    if (!Match(index, i, &m)) continue;
    bool free = true;
    for (size_t n : m.nodes) free = free && !out->Changed(n);
    if (!free) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "LayerNormalization";
    const std::string scale = m.scale.empty() ? out->AddConstant(m.y + "/unit_scale", Tensor::Scalar<float>(1.0f))
                                              : m.scale;
    fused.inputs = {m.x, scale};
    if (!m.bias.empty()) fused.inputs.push_back(m.bias);
    fused.outputs = {m.y};
    AttributeValue axis, epsilon;
    axis.kind = AttributeValue::Kind::kInt;
    axis.i = -1;
    epsilon.kind = AttributeValue::Kind::kFloat;
    epsilon.f = m.epsilon;
    fused.attrs.Set("axis", axis);
    fused.attrs.Set("epsilon", epsilon);
    out->Replace(i, std::move(fused));
    for (size_t k = 1; k < m.nodes.size(); ++k) out->Drop(m.nodes[k]);
    ++count->layer_norms;
  }
}

}  // namespace ptq
