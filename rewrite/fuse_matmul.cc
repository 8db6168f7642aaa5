// Pass: MatMul between DequantizeLinear outputs becomes an integer product: QLinearMatMul when the
// output is quantized and there is no bias, else MatMulInteger [+ Add of the int32 bias] and a
// DequantizeLinear of the int32 accumulator with scale a_scale * b_scale (S1, S2 and S4 of design.md).
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {
namespace {

struct MatMulMatch {
  int matmul = -1;
  QdqNode a, b;
  int bias_add = -1;               // Add(y, DQ(int32 bias)) after the MatMul
  std::optional<QdqNode> bias;     // that DQ
  std::string out;                 // float tensor the match replaces (the Add's output with a bias)
  std::optional<QdqNode> out_q;    // the only reader of `out`, a QuantizeLinear (QLinearMatMul form)
};

std::optional<MatMulMatch> Match(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (n.op_type() != "MatMul") return std::nullopt;
  auto a = ProducerDq(g, n.input(0));
  auto b = ProducerDq(g, n.input(1));
  if (!a || !b || !IsScalarParam(g, a->scale) || a->zero_point.empty() || b->zero_point.empty()) return std::nullopt;
  if (!IsScalarParam(g, b->scale)) {  // per column: a constant [K, N] weight quantized along axis 1
    if (!g.IsInitializer(b->x) || g.Initializer(b->x).dims_size() != 2 || (b->axis != 1 && b->axis != -1)) {
      return std::nullopt;
    }
  }
  MatMulMatch m;
  m.matmul = i;
  m.a = *a;
  m.b = *b;
  m.out = n.output(0);
  const std::vector<int> users = g.Consumers(m.out);
  if (users.size() == 1 && !g.IsGraphOutput(m.out) && g.node(users[0]).op_type() == "Add") {
    const onnx::NodeProto& add = g.node(users[0]);
    const std::string& other = add.input(0) == m.out ? add.input(1) : add.input(0);
    auto bias = ProducerDq(g, other);
    if (bias && g.IsInitializer(bias->x) && g.Initializer(bias->x).data_type() == onnx::TensorProto::INT32) {
      m.bias_add = users[0];
      m.bias = bias;
      m.out = add.output(0);
    }
  }
  const std::vector<int> readers = g.Consumers(m.out);
  if (readers.size() == 1 && !g.IsGraphOutput(m.out) &&
      g.node(readers[0]).op_type() == "QuantizeLinear") {
    m.out_q = AsQdq(g, readers[0]);
  }
  return m;
}

// Initializer `<base>/scale` = a_scale * b_scale (one value, or one per column).
std::string ProductScale(RewriteGraph* g, const MatMulMatch& m, const std::string& base) {
  const Tensor as = g->InitializerValue(m.a.scale), bs = g->InitializerValue(m.b.scale);
  std::vector<float> s(static_cast<size_t>(bs.size()));
  for (size_t k = 0; k < s.size(); ++k) s[k] = as.data<float>()[0] * bs.data<float>()[k];
  const std::string name = g->NewName(base + "/scale");
  g->AddInitializer(name, Tensor::FromVector<float>(bs.size() == 1 ? Shape{} : Shape{bs.size()}, s));
  return name;
}

void Apply(RewriteGraph* g, const MatMulMatch& m) {
  const std::string node_name = g->node(m.matmul).name();
  if (!m.bias && m.out_q) {
    g->AddNode("QLinearMatMul", {m.a.x, m.a.scale, m.a.zero_point, m.b.x, m.b.scale, m.b.zero_point, m.out_q->scale,
                                 m.out_q->zero_point},
               {m.out_q->y}, g->NewName(node_name + "/QLinearMatMul"));
    g->RemoveNode(m.out_q->index);
    g->RemoveNode(m.matmul);
    return;
  }
  std::string acc = g->NewName(m.out + "/int32");
  g->AddNode("MatMulInteger", {m.a.x, m.b.x, m.a.zero_point, m.b.zero_point}, {acc},
             g->NewName(node_name + "/MatMulInteger"));
  if (m.bias) {
    const std::string with_bias = g->NewName(m.out + "/int32_bias");
    g->AddNode("Add", {acc, m.bias->x}, {with_bias}, g->NewName(node_name + "/AddBias"));
    acc = with_bias;
    g->RemoveNode(m.bias_add);
  }
  const std::string scale = ProductScale(g, m, m.out);
  const int dq = g->AddNode("DequantizeLinear", {acc, scale}, {m.out}, g->NewName(node_name + "/DequantizeLinear"));
  if (!IsScalarParam(*g, scale)) g->SetIntAttribute(dq, "axis", -1);
  g->RemoveNode(m.matmul);
}

}  // namespace

bool FuseQuantizedMatMul(RewriteGraph* g) {
  bool changed = false;
  for (int i = 0; i < g->size(); ++i) {
    if (auto m = Match(*g, i)) {
      Apply(g, *m);
      changed = true;
    }
  }
  return changed;
}

}  // namespace ptq
