// Selected tensors whose values are a rearrangement of another selected tensor's (Reshape, Transpose...).
#pragma once

#include <map>
#include <set>
#include <string>

#include "runtime/graph.h"

namespace ptq {

// For each tensor T of `observed` (the tensors whose histograms are taken from the run) produced by a
// chain of value-preserving ops (RearrangesValues in runtime/value_movement.h: same multiset of
// values, only the shape or the order changes) from another tensor S of `observed`, the
// entry T -> S, with S the nearest such tensor whose own source is not in the map (S is folded, T is
// not). A histogram is a function of the multiset of values alone (histogram.h), so T's histogram is
// S's, bit for bit, after any number of runs: it need not be computed twice.
std::map<std::string, std::string> FindValueAliases(const Graph& graph, const std::set<std::string>& observed);

}  // namespace ptq
