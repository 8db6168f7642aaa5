// FuseQdqGroups: each fusion (one per qdq_fuse_*.cc file) replaces its groups by one node, then the
// DequantizeLinear nodes nobody reads any more are dropped.
#include "runtime/qdq_fusion.h"

#include "runtime/qdq_match.h"

namespace ptq {

Graph FuseQdqGroups(const Graph& graph, QdqFusionCount* count) {
  const QdqIndex index(graph);
  FusedGraph out(graph);
  FuseMatMulConvGroups(index, &out);
  FuseTableGroups(index, &out);
  FuseBinaryGroups(index, &out);
  FusePoolGroups(index, &out);
  if (count) *count = out.count();
  return out.count().total() == 0 ? graph : out.Finish();
}

}  // namespace ptq
