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

namespace {

// One of the fusions run after the others, over `graph` alone; its count (the field `kind`) added to *count.
Graph FuseLater(const Graph& graph, void (*fuse)(const QdqIndex&, GraphEdit*, QdqFusionCount*),
                int QdqFusionCount::*kind, QdqFusionCount* count) {
  const QdqIndex index(graph);
  GraphEdit out(graph);
  QdqFusionCount fused;
  fuse(index, &out, &fused);
  if (count) count->*kind += fused.*kind;
  return fused.*kind == 0 ? graph : out.Finish(false);
}

}  // namespace

Graph FuseBinaryOutputGroups(const Graph& graph, QdqFusionCount* count) {
  return FuseLater(graph, FuseBinaryOutputs, &QdqFusionCount::binary_outputs, count);
}

Graph FuseConvOutputGroups(const Graph& graph, QdqFusionCount* count) {
  return FuseLater(graph, FuseConvOutputs, &QdqFusionCount::conv_outputs, count);
}

}  // namespace ptq
