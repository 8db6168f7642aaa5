// Pass: Conv between DequantizeLinear outputs whose output only integer nodes read (through its
// QuantizeLinear) becomes QLinearConv with the int32 bias; the Conv's attributes carry over. A Conv
// whose float output a float node or the graph's outputs read stays a float Conv of the dequantized
// 8-bit input and weight: a QLinearConv would round that output to 8 bits first, and ONNX Runtime's
// ConvInteger takes uint8 weights only, so no standard integer op gives the exact accumulator as
// MatMulInteger does (measured on MobileNetV2: 8.0 dB output SQNR with the rounding, 8.4 dB without).
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {
namespace {

struct ConvMatch {
  int conv = -1;
  QdqNode x, w, y;  // y: the QuantizeLinear of the Conv's output, its only reader
  std::optional<QdqNode> b;
};

std::optional<ConvMatch> Match(const RewriteGraph& g, int i) {
  const onnx::NodeProto& n = g.node(i);
  if (n.op_type() != "Conv" || n.input_size() < 2) return std::nullopt;
  auto x = ProducerDq(g, n.input(0));
  auto w = ProducerDq(g, n.input(1));
  if (!x || !w || !IsScalarParam(g, x->scale) || x->zero_point.empty() || w->zero_point.empty() ||
      !g.IsInitializer(w->x)) {
    return std::nullopt;
  }
  if (!IsScalarParam(g, w->scale) && w->axis != 0) return std::nullopt;
  ConvMatch m;
  m.conv = i;
  m.x = *x;
  m.w = *w;
  if (n.input_size() > 2 && !n.input(2).empty()) {
    m.b = ProducerDq(g, n.input(2));
    if (!m.b || !g.IsInitializer(m.b->x) || g.Initializer(m.b->x).data_type() != onnx::TensorProto::INT32) {
      return std::nullopt;
    }
  }
  const std::vector<int> readers = g.Consumers(n.output(0));
  if (readers.size() != 1 || g.IsGraphOutput(n.output(0)) || g.node(readers[0]).op_type() != "QuantizeLinear") {
    return std::nullopt;
  }
  m.y = AsQdq(g, readers[0]);
  return m;
}

void Apply(RewriteGraph* g, const ConvMatch& m) {
  const onnx::NodeProto conv = g->node(m.conv);
  std::vector<std::string> inputs = {m.x.x, m.x.scale, m.x.zero_point, m.w.x, m.w.scale, m.w.zero_point, m.y.scale,
                                     m.y.zero_point};
  if (m.b) inputs.push_back(m.b->x);
  const int q = g->AddNode("QLinearConv", inputs, {m.y.y}, g->NewName(conv.name() + "/QLinearConv"));
  g->CopyAttributes(q, conv);
  g->RemoveNode(m.y.index);
  g->RemoveNode(m.conv);
}

}  // namespace

bool FuseQuantizedConv(RewriteGraph* g) {
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
