// FuseGelus: GELU written out op by op (torch below opset 20), in its erf and tanh forms, becomes one Gelu.
#include <cmath>
#include <vector>

#include "runtime/float_fusion.h"
#include "runtime/pattern_match.h"

namespace ptq {
namespace {

constexpr double kSqrt2OverPi = 0.79788456080286535588;

struct GeluMatch {
  std::vector<size_t> nodes;  // every node of the pattern, the first one computed first
  std::string x, y;
};

// The end shared by both forms, from a = 1 + erf(..) or 1 + tanh(..):
//   y = Mul(Mul(x, a), 0.5)   (torch)   or   y = Mul(Mul(x, 0.5), a)   (x * 0.5 * (1 + ..) as written).
bool MatchTail(const GraphIndex& index, const std::string& a, GeluMatch* m) {
  const Graph& g = index.graph();
  const size_t at = index.OnlyReader(a);
  if (at == GraphIndex::kNone) return false;
  const Node& mul = g.nodes[at];
  std::string other, half;
  if (!OtherOperand(mul, "Mul", a, true, &other)) return false;
  size_t last;
  if (other == m->x) {  // Mul(x, a) then Mul(.., 0.5)
    const Node* scale = OnlyReaderNode(index, mul, &last);
    if (!scale || !OtherOperand(*scale, "Mul", mul.outputs[0], true, &half) || !ScalarNear(index, half, 0.5)) {
      return false;
    }
    m->nodes.insert(m->nodes.end(), {at, last});
    m->y = scale->outputs[0];
    return true;
  }
  const size_t h = index.Producer(other);  // Mul(x, 0.5), read only here
  if (h == GraphIndex::kNone || index.OnlyReader(other) != at) return false;
  const Node& x_half = g.nodes[h];
  if (!OtherOperand(x_half, "Mul", m->x, true, &half) || !ScalarNear(index, half, 0.5)) return false;
  m->nodes.insert(m->nodes.end(), {h, at});
  m->y = mul.outputs[0];
  return true;
}

// The constant 1 + t of t = node n's output: its index in *at, the sum's name in *a.
bool PlusOne(const GraphIndex& index, const Node& n, size_t* at, std::string* a) {
  const Node* add = OnlyReaderNode(index, n, at);
  std::string one;
  if (!add || !OtherOperand(*add, "Add", n.outputs[0], true, &one) || !ScalarNear(index, one, 1.0)) return false;
  *a = add->outputs[0];
  return true;
}

// x * 0.5 * (1 + Erf(x / sqrt(2))), from the Erf node i; the division may be a Mul by 1 / sqrt(2).
bool MatchErf(const GraphIndex& index, size_t i, GeluMatch* m) {
  const Graph& g = index.graph();
  const Node& erf = g.nodes[i];
  if (!erf.domain.empty() || erf.op_type != "Erf" || erf.inputs.size() != 1 || erf.outputs.size() != 1) return false;
  const size_t d = index.Producer(erf.inputs[0]);
  if (d == GraphIndex::kNone || index.OnlyReader(erf.inputs[0]) != i) return false;
  const Node& scale = g.nodes[d];
  if (!scale.domain.empty() || scale.inputs.size() != 2) return false;
  std::string c;
  if (OtherOperand(scale, "Div", scale.inputs[0], false, &c) && ScalarNear(index, c, std::sqrt(2.0))) {
    m->x = scale.inputs[0];
  } else if (scale.op_type == "Mul" && ScalarNear(index, scale.inputs[1], std::sqrt(0.5))) {
    m->x = scale.inputs[0];
  } else if (scale.op_type == "Mul" && ScalarNear(index, scale.inputs[0], std::sqrt(0.5))) {
    m->x = scale.inputs[1];
  } else {
    return false;
  }
  size_t add;
  std::string a;
  if (!PlusOne(index, erf, &add, &a)) return false;
  m->nodes = {d, i, add};
  return MatchTail(index, a, m);
}

// x * 0.5 * (1 + Tanh(sqrt(2 / pi) * (x + 0.044715 * x^3))), from the Tanh node i; x^3 as Pow(x, 3) or
// Mul(x, Mul(x, x)).
bool MatchTanh(const GraphIndex& index, size_t i, GeluMatch* m) {
  const Graph& g = index.graph();
  const Node& tanh = g.nodes[i];
  if (!tanh.domain.empty() || tanh.op_type != "Tanh" || tanh.inputs.size() != 1 || tanh.outputs.size() != 1) {
    return false;
  }
  // Each producer below is read only by the next node of the chain.
  auto producer = [&](const std::string& name, size_t reader) -> const Node* {
    const size_t p = index.Producer(name);
    if (p == GraphIndex::kNone || index.OnlyReader(name) != reader || !g.nodes[p].domain.empty()) return nullptr;
    m->nodes.insert(m->nodes.begin(), p);
    return &g.nodes[p];
  };
  m->nodes = {i};
  const Node* scale = producer(tanh.inputs[0], i);  // Mul(sqrt(2 / pi), u)
  if (!scale || scale->op_type != "Mul" || scale->inputs.size() != 2) return false;
  const bool c_first = ScalarNear(index, scale->inputs[0], kSqrt2OverPi);
  if (!c_first && !ScalarNear(index, scale->inputs[1], kSqrt2OverPi)) return false;
  const size_t scale_at = m->nodes.front();
  const Node* sum = producer(scale->inputs[c_first ? 1 : 0], scale_at);  // Add(x, t)
  if (!sum || sum->op_type != "Add" || sum->inputs.size() != 2) return false;
  const size_t sum_at = m->nodes.front();
  // One operand of the sum is x, the other 0.044715 * x^3.
  for (int k = 0; k < 2; ++k) {
    const std::string x = sum->inputs[k], t = sum->inputs[1 - k];
    const size_t t_at = index.Producer(t);
    if (t_at == GraphIndex::kNone || index.OnlyReader(t) != sum_at) continue;
    const Node& cubic = g.nodes[t_at];
    std::string cube;
    if (!cubic.domain.empty() || cubic.op_type != "Mul" || cubic.inputs.size() != 2) continue;
    if (ScalarNear(index, cubic.inputs[0], 0.044715)) {
      cube = cubic.inputs[1];
    } else if (ScalarNear(index, cubic.inputs[1], 0.044715)) {
      cube = cubic.inputs[0];
    } else {
      continue;
    }
    const size_t c_at = index.Producer(cube);
    if (c_at == GraphIndex::kNone || index.OnlyReader(cube) != t_at) continue;
    const Node& c = g.nodes[c_at];
    std::string other;
    std::vector<size_t> power = {c_at};
    if (OtherOperand(c, "Pow", x, false, &other)) {
      if (!ScalarNear(index, other, 3.0)) continue;
    } else if (OtherOperand(c, "Mul", x, true, &other)) {  // x * (x * x)
      const size_t sq = index.Producer(other);
      if (sq == GraphIndex::kNone || index.OnlyReader(other) != c_at) continue;
      const Node& s = g.nodes[sq];
      if (!s.domain.empty() || s.op_type != "Mul" || s.inputs.size() != 2 || s.inputs[0] != x || s.inputs[1] != x) continue;
      power.insert(power.begin(), sq);
    } else {
      continue;
    }
    m->x = x;
    m->nodes.insert(m->nodes.begin(), t_at);
    m->nodes.insert(m->nodes.begin(), power.begin(), power.end());
    size_t add;
    std::string a;
    if (!PlusOne(index, tanh, &add, &a)) return false;
    m->nodes.push_back(add);
    return MatchTail(index, a, m);
  }
  return false;
}

}  // namespace

void FuseGelus(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    GeluMatch m;
    const bool tanh = g.nodes[i].op_type == "Tanh";
    if (!(tanh ? MatchTanh(index, i, &m) : MatchErf(index, i, &m))) continue;
    bool free = true;
    for (size_t n : m.nodes) free = free && !out->Changed(n);
    if (!free) continue;
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "Gelu";
    fused.inputs = {m.x};
    fused.outputs = {m.y};
    if (tanh) {
      AttributeValue approximate;
      approximate.kind = AttributeValue::Kind::kString;
      approximate.s = "tanh";
      fused.attrs.Set("approximate", approximate);
    }
    out->Replace(m.nodes.front(), std::move(fused));
    for (size_t k = 1; k < m.nodes.size(); ++k) out->Drop(m.nodes[k]);
    ++count->gelus;
  }
}

}  // namespace ptq
