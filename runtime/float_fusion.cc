// FuseFloatPatterns: each pass (one per file) replaces its matches by one node.
#include "runtime/float_fusion.h"

namespace ptq {

Graph FuseFloatPatterns(const Graph& graph, FloatFusionCount* count) {
  FloatFusionCount fused;
  if (graph.captures.empty()) {
    const GraphIndex index(graph);
    GraphEdit out(graph);
    FuseConvActivations(index, &out, &fused);
    FuseConvSums(index, &out, &fused);
    FuseLayerNorms(index, &out, &fused);
    FuseGelus(index, &out, &fused);
    FuseSilus(index, &out, &fused);
    FuseBatchNorms(index, &out, &fused);
    FuseElementwiseChains(index, &out, &fused);
    FuseScaleResiduals(index, &out, &fused);
    if (fused.total() > 0) {
      if (count) *count = fused;
      return out.Finish(false);
    }
  }
  if (count) *count = fused;
  return graph;
}

}  // namespace ptq
