// QdqIndex (producers, readers, the quantization nodes around an op) and FusedGraph (the edits).
#include "runtime/qdq_match.h"

#include <memory>

#include "runtime/op_registry.h"

namespace ptq {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

}  // namespace

QdqIndex::QdqIndex(const Graph& g) : g_(g) {
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& o : g.nodes[i].outputs) producer_[o] = i;
    for (const std::string& in : g.nodes[i].inputs) readers_[in].push_back(i);
    for (const std::string& in : g.nodes[i].implicit_inputs) readers_[in].push_back(i);
  }
  for (const ValueInfo& o : g.outputs) readers_[o.name].push_back(kNone);
}

const Tensor* QdqIndex::Constant(const std::string& name) const {
  const auto it = g_.constants.find(name);
  return it == g_.constants.end() ? nullptr : &it->second;
}

size_t QdqIndex::Producer(const std::string& name) const {
  const auto p = producer_.find(name);
  return p == producer_.end() ? kNone : p->second;
}

bool QdqIndex::Dequantized(const std::string& name, bool weight, int64_t axis, DqNode* dq) const {
  const size_t p = Producer(name);
  if (p == kNone) return false;
  const Node& n = g_.nodes[p];
  if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() < 3 || n.inputs[2].empty()) return false;
  if (n.attrs.Has("block_size")) return false;
  DqNode d{&n, Constant(n.inputs[1]), Constant(n.inputs[2])};
  if (!d.scale || !d.zero_point || d.scale->dtype() != DataType::kFloat || !Is8Bit(d.zero_point->dtype())) {
    return false;
  }
  if (d.scale->size() != d.zero_point->size() || d.scale->rank() > 1) return false;
  const Tensor* q = Constant(n.inputs[0]);
  bool ok;
  if (!weight) {
    ok = d.scale->size() == 1;
  } else if (d.scale->size() == 1) {
    ok = !q || q->dtype() == d.zero_point->dtype();
  } else {
    const int64_t a = n.attrs.GetInt("axis", 1);
    ok = q && q->dtype() == d.zero_point->dtype() && q->rank() > axis && (a == axis || a == axis - q->rank());
  }
  if (ok) *dq = d;
  return ok;
}

size_t QdqIndex::OnlyQuantizeReader(const std::string& name) const {
  const auto r = readers_.find(name);
  if (r == readers_.end() || r->second.size() != 1 || r->second[0] == kNone) return kNone;
  const Node& n = g_.nodes[r->second[0]];
  if (!n.domain.empty() || n.op_type != "QuantizeLinear" || n.inputs.size() < 3 || n.inputs[0] != name ||
      n.inputs[2].empty()) {
    return kNone;
  }
  const Tensor* scale = Constant(n.inputs[1]);
  const Tensor* zp = Constant(n.inputs[2]);
  if (!scale || !zp || scale->dtype() != DataType::kFloat || scale->size() != 1 || zp->size() != 1 ||
      !Is8Bit(zp->dtype())) {
    return kNone;
  }
  return r->second[0];
}

Tensor QdqIndex::Evaluate(const Node& n, const std::vector<const Tensor*>& inputs) const {
  const KernelDef* def = OpRegistry::Global().Find(n.domain, n.op_type, g_.OpsetFor(n.domain));
  if (def == nullptr) ThrowInputError("no kernel for ", n.op_type);
  KernelInit init;
  init.node_name = n.name;
  init.op_type = n.op_type;
  init.opset = g_.OpsetFor(n.domain);
  init.attrs = &n.attrs;
  init.num_inputs = static_cast<int>(inputs.size());
  init.num_outputs = static_cast<int>(n.outputs.size());
  init.const_inputs.assign(inputs.size(), nullptr);
  const std::unique_ptr<Kernel> kernel = def->factory(init);
  KernelContext ctx;
  ctx.inputs = inputs;
  ctx.outputs.resize(n.outputs.size());
  kernel->Run(ctx);
  return ctx.outputs[0];
}

void FusedGraph::Replace(size_t i, Node fused, size_t q) {
  fused.name = out_.nodes[i].name;
  if (fused.domain == kFusedDomain) out_.opsets[kFusedDomain] = 1;
  out_.nodes[i] = std::move(fused);
  if (q != QdqIndex::kNone) drop_[q] = true;
}

std::string FusedGraph::AddConstant(const std::string& base, Tensor value) {
  std::string name = base;
  for (int i = 1; out_.constants.count(name); ++i) name = base + "." + std::to_string(i);
  out_.constants[name] = std::move(value);
  return name;
}

Graph FusedGraph::Finish() {
  std::vector<Node> nodes;
  for (size_t i = 0; i < out_.nodes.size(); ++i) {
    if (!drop_[i]) nodes.push_back(std::move(out_.nodes[i]));
  }
  // Drop DequantizeLinear nodes whose output no node and no graph output reads, until none is left.
  for (bool changed = true; changed;) {
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
