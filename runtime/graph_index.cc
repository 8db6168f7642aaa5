// GraphIndex (producers and readers of each tensor) and GraphEdit (a fusion's replacements).
#include "runtime/graph_index.h"

#include <deque>
#include <set>

namespace ptq {

GraphIndex::GraphIndex(const Graph& g) : g_(g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& o : g.nodes[i].outputs) producer_[o] = i;
    for (const std::string& in : g.nodes[i].inputs) readers_[in].push_back(i);
    for (const std::string& in : g.nodes[i].implicit_inputs) readers_[in].push_back(i);
  }
  for (const ValueInfo& o : g.outputs) readers_[o.name].push_back(kNone);
}

const Tensor* GraphIndex::Constant(const std::string& name) const {
  const auto it = g_.constants.find(name);
  return it == g_.constants.end() ? nullptr : &it->second;
}

size_t GraphIndex::Producer(const std::string& name) const {
  const auto p = producer_.find(name);
  return p == producer_.end() ? kNone : p->second;
}

const Node* GraphIndex::ProducerOf(const std::string& name, const char* op_type) const {
  const size_t p = Producer(name);
  if (p == kNone) return nullptr;
  const Node& n = g_.nodes[p];
  return n.domain.empty() && n.op_type == op_type ? &n : nullptr;
}

const std::vector<size_t>& GraphIndex::Readers(const std::string& name) const {
  static const std::vector<size_t> none;
  const auto r = readers_.find(name);
  return r == readers_.end() ? none : r->second;
}

size_t GraphIndex::OnlyReader(const std::string& name) const {
  const std::vector<size_t>& r = Readers(name);
  return r.size() == 1 ? r[0] : kNone;
}

std::vector<size_t> GraphIndex::TopologicalOrder() const {
  std::vector<int> pending(g_.nodes.size(), 0);
  std::vector<std::vector<size_t>> readers(g_.nodes.size());
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    std::set<size_t> deps;
    for (const auto* list : {&g_.nodes[i].inputs, &g_.nodes[i].implicit_inputs}) {
      for (const std::string& in : *list) {
        const size_t p = in.empty() ? kNone : Producer(in);
        if (p != kNone) deps.insert(p);
      }
    }
    pending[i] = static_cast<int>(deps.size());
    for (size_t d : deps) readers[d].push_back(i);
  }
  std::deque<size_t> ready;
  for (size_t i = 0; i < g_.nodes.size(); ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  std::vector<size_t> order;
  while (!ready.empty()) {
    const size_t i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (size_t r : readers[i]) {
      if (--pending[r] == 0) ready.push_back(r);
    }
  }
  return order;
}

void GraphEdit::Replace(size_t i, Node node) {
  node.name = out_.nodes[i].name;
  if (node.domain == kFusedDomain) out_.opsets[kFusedDomain] = 1;
  out_.nodes[i] = std::move(node);
  replaced_.insert(i);
}

std::string GraphEdit::AddConstant(const std::string& base, Tensor value) {
  std::string name = base;
  for (int i = 1; out_.constants.count(name); ++i) name = base + "." + std::to_string(i);
  out_.constants[name] = std::move(value);
  return name;
}

Graph GraphEdit::Finish(bool remove_unread_dequantize) {
  std::vector<Node> nodes;
  for (size_t i = 0; i < out_.nodes.size(); ++i) {
    if (!drop_[i]) nodes.push_back(std::move(out_.nodes[i]));
  }
  for (bool changed = remove_unread_dequantize; changed;) {
    changed = false;
    std::set<std::string> read;
    for (const Node& n : nodes) {
      read.insert(n.inputs.begin(), n.inputs.end());
      read.insert(n.implicit_inputs.begin(), n.implicit_inputs.end());
    }
    for (const ValueInfo& o : out_.outputs) read.insert(o.name);
    std::vector<Node> kept;
    for (Node& n : nodes) {
      if (n.domain.empty() && n.op_type == "DequantizeLinear" && n.outputs.size() == 1 && !read.count(n.outputs[0])) {
        changed = true;
        continue;
      }
      kept.push_back(std::move(n));
    }
    nodes = std::move(kept);
  }
  out_.nodes = std::move(nodes);
  return std::move(out_);
}

}  // namespace ptq
