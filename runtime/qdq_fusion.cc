// FuseQdqGroups: each fusion (one per qdq_fuse_*.cc file) replaces its groups by one node, then the
// DequantizeLinear nodes nobody reads any more are dropped. FuseBinaryOutputGroups and
// FuseConvOutputGroups: the two fusions run later.
#include "runtime/qdq_fusion.h"

#include "runtime/qdq_match.h"

namespace ptq {

Graph FuseQdqGroups(const Graph& graph, QdqFusionCount* count) {
  const QdqIndex index(graph);
  GraphEdit out(graph);
  QdqFusionCount fused;
  FuseMatMulConvGroups(index, &out, &fused);
  FuseTableGroups(index, &out, &fused);
  FuseBinaryGroups(index, &out, &fused);
  FusePoolGroups(index, &out, &fused);
  FuseIntegerOutputs(index, &out, &fused);
  FuseMovementGroups(index, &out, &fused);
  if (count) *count = fused;
  return fused.total() == 0 ? graph : out.Finish(true);
}

Graph FuseBinaryOutputGroups(const Graph& graph, QdqFusionCount* count) {
  const QdqIndex index(graph);
  GraphEdit out(graph);
  QdqFusionCount fused;
  FuseBinaryOutputs(index, &out, &fused);
  if (count) count->binary_outputs += fused.binary_outputs;
  return fused.binary_outputs == 0 ? graph : out.Finish(false);
}

Graph FuseConvOutputGroups(const Graph& graph, QdqFusionCount* count) {
  const QdqIndex index(graph);
  GraphEdit out(graph);
  QdqFusionCount fused;
  FuseConvOutputs(index, &out, &fused);
  if (count) count->conv_outputs += fused.conv_outputs;
  return fused.conv_outputs == 0 ? graph : out.Finish(false);
}

}  // namespace ptq
