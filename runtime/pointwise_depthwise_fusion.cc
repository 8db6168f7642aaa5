// FusePointwiseDepthwise: a channels-last 1x1 FusedConv whose output only a depthwise FusedConv reads becomes one
// PointwiseDepthwiseConv with it (MobileNet's and EfficientNet's expansions, PP-LCNet's), which never writes that
// output whole.
#include <algorithm>
#include <string>

#include "runtime/activation_fusion.h"
#include "runtime/channels_last_layout.h"
#include "runtime/graph_index.h"
#include "runtime/ops/nn/pointwise_depthwise_conv.h"

namespace ptq {
namespace {

// A ptq.fused FusedConv of the channels-last layout with a constant float32 4-D weight and no residual input.
const Tensor* ChannelsLastConvWeight(const GraphIndex& index, const Node& n) {
  if (n.domain != kFusedDomain || n.op_type != "FusedConv" || n.attrs.GetInt(kChannelsLast, 0) == 0 ||
      n.inputs.size() < 2 || n.inputs.size() > 3 || n.outputs.size() != 1) {
    return nullptr;
  }
  const Tensor* w = index.Constant(n.inputs[1]);
  return w != nullptr && w->dtype() == DataType::kFloat && w->rank() == 4 ? w : nullptr;
}

bool AllEqual(const std::vector<int64_t>& v, int64_t value) {
  return std::all_of(v.begin(), v.end(), [&](int64_t x) { return x == value; });
}

// A 1x1 window of stride 1, no padding and one group: every output position is the GEMM row of its input.
bool IsPointwiseConv(const Node& n, const Tensor& w) {
  return w.dim(2) == 1 && w.dim(3) == 1 && n.attrs.GetInt("group", 1) == 1 && AllEqual(n.attrs.GetInts("strides"), 1) &&
         AllEqual(n.attrs.GetInts("pads"), 0);
}

void CopyAttribute(const Node& from, const char* name, const char* as, Node* to) {
  auto it = from.attrs.all().find(name);
  if (it != from.attrs.all().end()) to->attrs.Set(as, it->second);
}

}  // namespace

Graph FusePointwiseDepthwise(const Graph& graph, ChannelsLastCount* count) {
  const GraphIndex index(graph);
  GraphEdit out(graph);
  int fused = 0;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& pw = graph.nodes[i];
    const Tensor* w1 = ChannelsLastConvWeight(index, pw);
    if (w1 == nullptr || !IsPointwiseConv(pw, *w1) || out.Changed(i)) continue;
    const size_t d = index.OnlyReader(pw.outputs[0]);
    if (d == GraphIndex::kNone || out.Changed(d)) continue;
    const Node& dw = graph.nodes[d];
    const Tensor* w2 = ChannelsLastConvWeight(index, dw);
    const int64_t E = w1->dim(0);
    if (w2 == nullptr || dw.inputs[0] != pw.outputs[0] || w2->dim(0) != E || w2->dim(1) != 1 ||
        dw.attrs.GetInt("group", 1) != E) {
      continue;
    }
    Node f = dw;
    f.op_type = "PointwiseDepthwiseConv";
    f.inputs = {pw.inputs[0], pw.inputs[1], pw.inputs.size() > 2 ? pw.inputs[2] : std::string(), dw.inputs[1],
                dw.inputs.size() > 2 ? dw.inputs[2] : std::string()};
    CopyAttribute(pw, kActivationMin, kPointwiseActivationMin, &f);
    CopyAttribute(pw, kActivationMax, kPointwiseActivationMax, &f);
    CopyAttribute(pw, kActivationSilu, kPointwiseActivationSilu, &f);
    // The 1x1's element-wise chain under its own names (the depthwise's keeps activation_chain_*).
    for (const char* part : {"ops", "operands", "constants", "rank"}) {
      CopyAttribute(pw, (std::string(kActivationChainPrefix) + part).c_str(),
                    (std::string(kPointwiseActivationChainPrefix) + part).c_str(), &f);
    }
    out.Replace(d, std::move(f));
    out.Drop(i);
    ++fused;
  }
  if (count != nullptr) count->pointwise_depthwise += fused;
  return fused > 0 ? out.Finish(false) : graph;
}

}  // namespace ptq
