// Pass: Conv between DequantizeLinear outputs whose output is quantized becomes QLinearConv with the
// int32 bias; the Conv's attributes carry over. When float nodes (or the graph's outputs) read the
// Conv's output too, a DequantizeLinear of the QLinearConv's output writes it for them: ONNX Runtime's
// ConvInteger takes uint8 weights only, so an int8 convolution cannot give them its int32 accumulator
// as MatMulInteger does (the QDQ form keeps their float values).
#include "rewrite/passes.h"

#include "rewrite/qdq_util.h"

namespace ptq {
namespace {

struct ConvMatch {
  int conv = -1;
  QdqNode x, w, y;                // y: the QuantizeLinear of the Conv's output
  std::optional<QdqNode> b;
  bool float_readers = false;     // others read the Conv's float output (or it is a graph output)
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
  // The output's QuantizeLinear: per tensor, 8-bit, constant parameters.
  for (int r : g.Consumers(n.output(0))) {
    if (g.node(r).op_type() != "QuantizeLinear") continue;
    auto q = ProducerQ(g, g.node(r).output(0));
    if (!q || !IsScalarParam(g, q->scale) || q->zero_point.empty()) continue;
    m.y = *q;
    m.float_readers = g.Consumers(n.output(0)).size() > 1 || g.IsGraphOutput(n.output(0));
    return m;
  }
  return std::nullopt;
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
  if (m.float_readers) {  // the float output, dequantized from the 8-bit one
    g->AddNode("DequantizeLinear", {m.y.y, m.y.scale, m.y.zero_point}, {conv.output(0)},
               g->NewName(conv.name() + "/DequantizeLinear"));
  }
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
