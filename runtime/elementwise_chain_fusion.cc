// FuseElementwiseChains: Add / Sub / Mul / Div / Clip / Relu nodes with scalar constants that feed one another
// (hardswish and the learnable scale and bias that PP-OCR's networks write after each convolution) become one
// ElementwiseChain, with the QuantizeLinear that alone reads the result when there is one, or join the
// convolution that writes their input.
#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/activation_fusion.h"
#include "runtime/float_fusion.h"
#include "runtime/ops/math/elementwise_chain.h"
#include "runtime/ops/quantization/integer_to_float.h"
#include "runtime/pattern_match.h"

namespace ptq {
namespace {

// One node as a step: its op, its computed operands ("" where a constant stands) and the constants.
struct NodeStep {
  ChainStep step;
  std::string in[2];
  bool typed = false;  // a float32 constant operand or bound: the node's data is float32 too
  int64_t rank = 0;    // the largest rank of its constant operands (a [1] makes a scalar X's value a [1])
};

// A float32 constant of one value and rank 0 or 1 (so that it broadcasts to any shape but a scalar's).
bool ScalarConstant(const GraphIndex& index, const std::string& name, float* value, int64_t* rank) {
  const Tensor* t = index.Constant(name);
  if (t == nullptr || t->dtype() != DataType::kFloat || t->size() != 1 || t->rank() > 1) return false;
  *value = t->data<float>()[0];
  *rank = std::max<int64_t>(*rank, t->rank());
  return true;
}

bool AsStep(const GraphIndex& index, const Node& n, int opset, NodeStep* s) {
  static const std::map<std::string, ChainOp> kBinary = {
      {"Add", ChainOp::kAdd}, {"Sub", ChainOp::kSub}, {"Mul", ChainOp::kMul}, {"Div", ChainOp::kDiv}};
  if (!n.domain.empty() || n.outputs.size() != 1 || n.outputs[0].empty() || n.inputs.empty() ||
      n.inputs[0].empty() || n.attrs.Has("broadcast")) {
    return false;  // opsets before 7 broadcast by attribute
  }
  *s = NodeStep();
  const auto binary = kBinary.find(n.op_type);
  if (binary != kBinary.end()) {
    if (n.inputs.size() != 2 || n.inputs[1].empty()) return false;
    s->step.op = binary->second;
    int* reg[2] = {&s->step.a, &s->step.b};
    float* c[2] = {&s->step.ca, &s->step.cb};
    for (int i = 0; i < 2; ++i) {
      if (index.Constant(n.inputs[i]) == nullptr) {
        s->in[i] = n.inputs[i];
      } else if (ScalarConstant(index, n.inputs[i], c[i], &s->rank)) {
        *reg[i] = kChainConstant;
        s->typed = true;
      } else {
        return false;
      }
    }
    return !s->in[0].empty() || !s->in[1].empty();
  }
  s->step.b = kChainConstant;
  if (index.Constant(n.inputs[0]) != nullptr) return false;
  s->in[0] = n.inputs[0];
  if (n.op_type == "Relu" && n.inputs.size() == 1) {
    s->step.op = ChainOp::kRelu;
    return true;
  }
  if (n.op_type != "Clip") return false;
  s->step.op = ChainOp::kClip;
  if (opset < 11) {  // the Clip kernel's bounds: float attributes, for float32 data the lowest and largest float
    if (n.inputs.size() != 1) return false;
    s->step.ca = n.attrs.GetFloat("min", std::numeric_limits<float>::lowest());
    s->step.cb = n.attrs.GetFloat("max", std::numeric_limits<float>::max());
    return true;
  }
  if (n.inputs.size() > 3) return false;
  float bound[2] = {-std::numeric_limits<float>::infinity(), std::numeric_limits<float>::infinity()};
  for (size_t i = 1; i < n.inputs.size(); ++i) {
    if (n.inputs[i].empty()) continue;
    int64_t bound_rank = 0;  // the Clip kernel takes a bound of one value of any rank; its output has X's shape
    if (!ScalarConstant(index, n.inputs[i], &bound[i - 1], &bound_rank)) return false;
    s->typed = true;
  }
  s->step.ca = bound[0];
  s->step.cb = bound[1];
  return true;
}

// The convolution writing x that can store the chain's values, when only the chain's nodes `members` read x, else
// kNone: a ConvIntegerToFloat (float32 out: no residual, no QuantizeLinear), or, when the chain ends in no
// QuantizeLinear (`quantized` false), a float32 Conv with a constant weight or a FusedConv without residual; and
// no chain yet. *fused_op is the ptq.fused op that then runs it.
size_t StoringConvolution(const GraphIndex& index, const GraphEdit& out, const std::string& x,
                          const std::set<size_t>& members, bool quantized, std::string* fused_op) {
  size_t c = index.Producer(x);
  if (c != GraphIndex::kNone && out.Dropped(c) && !index.graph().nodes[c].inputs.empty()) {
    c = index.Producer(index.graph().nodes[c].inputs[0]);  // a Relu or Clip an earlier pass folded into the conv
  }
  if (c == GraphIndex::kNone || out.Dropped(c)) return GraphIndex::kNone;
  const Node& n = out.Current(c);
  if (n.outputs.size() != 1 || n.outputs[0] != x || n.attrs.Has(std::string(kActivationChainPrefix) + "ops")) {
    return GraphIndex::kNone;
  }
  if (IsConvIntegerToFloat(n)) {
    const bool residual = n.inputs.size() > kToFloatResidual && !n.inputs[kToFloatResidual].empty();
    if (residual || n.inputs.size() > kToFloatYScale) return GraphIndex::kNone;
  } else {
    const bool conv =
        (n.domain.empty() && n.op_type == "Conv") || (n.domain == kFusedDomain && n.op_type == "FusedConv");
    const Tensor* w = n.inputs.size() > 1 ? index.Constant(n.inputs[1]) : nullptr;
    if (quantized || !conv || n.inputs.size() > 3 || w == nullptr || w->dtype() != DataType::kFloat) {
      return GraphIndex::kNone;  // FusedConv's input 3 is a residual
    }
  }
  *fused_op = n.domain.empty() ? "FusedConv" : n.op_type;
  for (const size_t r : index.Readers(x)) {
    if (!members.count(r)) return GraphIndex::kNone;  // also a graph output (kNone)
  }
  return c;
}

}  // namespace

void FuseElementwiseChains(const GraphIndex& index, GraphEdit* out, FloatFusionCount* count) {
  const Graph& g = index.graph();
  const int opset = g.OpsetFor("");
  const std::vector<size_t> order = index.TopologicalOrder();
  std::vector<bool> taken(g.nodes.size(), false);
  for (const size_t first : order) {
    NodeStep s0;
    if (taken[first] || out->Changed(first) || !AsStep(index, g.nodes[first], opset, &s0)) continue;
    const std::string x = s0.in[0].empty() ? s0.in[1] : s0.in[0];
    if (!s0.in[0].empty() && !s0.in[1].empty() && s0.in[0] != s0.in[1]) continue;  // one computed input
    // Grow: a reader of the chain's values joins when each of its computed operands is X or such a value (the
    // reader of lowest index first); registers: X is 0, member k's value k + 1.
    std::vector<size_t> members = {first};
    std::vector<NodeStep> steps = {s0};
    std::map<std::string, int> reg = {{x, 0}, {g.nodes[first].outputs[0], 1}};
    while (static_cast<int>(members.size()) < kMaxChainSteps) {
      size_t next = GraphIndex::kNone;
      NodeStep next_step;
      for (const size_t m : members) {
        for (const size_t r : index.Readers(g.nodes[m].outputs[0])) {
          if (r == GraphIndex::kNone || r >= next || taken[r] || out->Changed(r) ||
              std::find(members.begin(), members.end(), r) != members.end()) {
            continue;
          }
          NodeStep s;
          if (!AsStep(index, g.nodes[r], opset, &s)) continue;
          if ((!s.in[0].empty() && !reg.count(s.in[0])) || (!s.in[1].empty() && !reg.count(s.in[1]))) continue;
          next = r;
          next_step = s;
        }
      }
      if (next == GraphIndex::kNone) break;
      members.push_back(next);
      steps.push_back(next_step);
      reg[g.nodes[next].outputs[0]] = static_cast<int>(members.size());
    }
    // The longest prefix of two or more nodes whose values, but for the last node's, only the prefix reads.
    size_t len = 0;
    for (size_t k = members.size(); k >= 2 && len == 0; --k) {
      const std::set<size_t> prefix(members.begin(), members.begin() + k);
      bool closed = true;
      for (size_t j = 0; j + 1 < k && closed; ++j) {
        for (const size_t r : index.Readers(g.nodes[members[j]].outputs[0])) closed = closed && prefix.count(r) > 0;
      }
      if (closed) len = k;
    }
    if (len == 0) continue;
    // The data is float32 when one of the nodes has a float32 constant (ONNX's type rules); else leave them.
    if (!std::any_of(steps.begin(), steps.begin() + len, [](const NodeStep& s) { return s.typed; })) continue;
    std::vector<ChainStep> program;
    for (size_t k = 0; k < len; ++k) {
      ChainStep p = steps[k].step;
      if (!steps[k].in[0].empty()) p.a = reg.at(steps[k].in[0]);
      if (!steps[k].in[1].empty()) p.b = reg.at(steps[k].in[1]);
      program.push_back(p);
    }
    int64_t rank = 0;  // of the output
    for (size_t k = 0; k < len; ++k) rank = std::max(rank, steps[k].rank);
    std::vector<std::string> outputs = g.nodes[members[len - 1]].outputs, quantize;
    const size_t q = QuantizeReader(index, *out, outputs[0]);
    if (q != GraphIndex::kNone) {
      quantize = {g.nodes[q].inputs[1], g.nodes[q].inputs[2]};
      outputs = g.nodes[q].outputs;
      out->Drop(q);
      taken[q] = true;
    }
    for (size_t k = 0; k < len; ++k) {
      taken[members[k]] = true;
      if (k > 0) out->Drop(members[k]);  // the first becomes the fused node, or goes below
    }
    std::string fused_op;
    const size_t conv = StoringConvolution(index, *out, x, std::set<size_t>(members.begin(), members.begin() + len),
                                           !quantize.empty(), &fused_op);
    if (conv != GraphIndex::kNone) {  // the convolution applies the chain to each block as it stores it
      Node fused = out->Current(conv);
      fused.domain = kFusedDomain;
      fused.op_type = fused_op;
      const Attributes chain = ElementwiseChainAttributes(program, rank, kActivationChainPrefix);
      for (const auto& kv : chain.all()) fused.attrs.Set(kv.first, kv.second);
      if (!quantize.empty()) {  // a ConvIntegerToFloat; an omitted residual stays omitted ("")
        fused.inputs.resize(kToFloatYScale);
        fused.inputs.insert(fused.inputs.end(), quantize.begin(), quantize.end());
      }
      fused.outputs = outputs;
      out->Replace(conv, std::move(fused));
      out->Drop(first);
      ++count->conv_chains;
      continue;
    }
    Node fused;
    fused.domain = kFusedDomain;
    fused.op_type = "ElementwiseChain";
    fused.inputs = {x};
    fused.inputs.insert(fused.inputs.end(), quantize.begin(), quantize.end());
    fused.outputs = outputs;
    fused.attrs = ElementwiseChainAttributes(program, rank);
    out->Replace(first, std::move(fused));
    ++count->elementwise_chains;
  }
}

}  // namespace ptq
