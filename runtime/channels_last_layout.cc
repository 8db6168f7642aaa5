// ToChannelsLast: one walk over the nodes in topological order, converting convolutions, letting
// element-wise readers follow, and adding Transposes where the two layouts meet.
#include "runtime/channels_last_layout.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/graph_index.h"
#include "runtime/ops/quantization/integer_to_float.h"

namespace ptq {
namespace {

// Which inputs of an element-wise op are data (broadcast with the others, so transposed with them);
// every other input must be a constant of one value (scales, zero points, bounds) or a table.
struct FollowRule {
  std::vector<size_t> data;
  bool other_inputs_scalar = true;  // false: other constant inputs of any size (LookupTable's table)
};

bool FollowRuleOf(const Node& n, FollowRule* rule) {
  static const std::set<std::string> unary = {
      "Abs", "Cast", "Ceil", "Clip", "Elu", "Erf", "Exp", "Floor", "HardSigmoid", "HardSwish", "Identity",
      "LeakyRelu", "Neg", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Softplus", "Softsign", "Sqrt",
      "Tanh", "QuantizeLinear", "DequantizeLinear"};
  static const std::set<std::string> nary = {"Add", "Sub", "Mul", "Div", "Max", "Min", "Sum", "Mean"};
  if (n.outputs.size() != 1 || n.attrs.Has("broadcast")) return false;
  if (n.domain.empty() && unary.count(n.op_type)) {
    *rule = {{0}, true};
  } else if (n.domain.empty() && nary.count(n.op_type)) {
    rule->data.clear();
    for (size_t i = 0; i < n.inputs.size(); ++i) rule->data.push_back(i);
  } else if (n.domain == kFusedDomain && (n.op_type == "QLinearAdd" || n.op_type == "QLinearMul")) {
    *rule = {{0, 3}, true};
  } else if (n.domain == kFusedDomain && (n.op_type == "AddQuantizeLinear" || n.op_type == "MulQuantizeLinear" ||
                                          n.op_type == "ScaleResidual")) {
    *rule = {{0, 1}, true};
  } else if (n.domain == kFusedDomain &&
             (n.op_type == "Gelu" || n.op_type == "Silu" || n.op_type == "ElementwiseChain")) {
    *rule = {{0}, true};
  } else if (n.domain == kFusedDomain && n.op_type == "LookupTable") {
    *rule = {{0}, false};
  } else {
    return false;
  }
  return true;
}

// The input index of the weight of a convolution that can run channels last, or -1; *fused_op is the
// ptq.fused op that runs it so.
int ConvWeightInput(const Node& n, std::string* fused_op) {
  const bool ours = n.domain.empty() || n.domain == kFusedDomain;
  *fused_op = n.op_type;
  if (n.op_type == "QLinearConv" && ours) return 3;
  if (n.op_type == "ConvIntegerToFloat" && n.domain == kFusedDomain) return 1;
  if ((n.op_type == "Conv" && n.domain.empty()) || (n.op_type == "FusedConv" && n.domain == kFusedDomain)) {
    *fused_op = "FusedConv";  // without activation attributes, a Conv
    return 1;
  }
  return -1;
}

// c [d1..dk] (k <= 4) broadcast as [1.., d1..dk] over NCHW, as the same values over NHWC.
Tensor ChannelsLastConstant(const Tensor& c) {
  Shape s(4 - c.shape().size(), 1);
  s.insert(s.end(), c.shape().begin(), c.shape().end());
  const Shape out{s[0], s[2], s[3], s[1]};
  Tensor t = Tensor::Uninitialized(c.dtype(), out);
  const size_t e = ElementSize(c.dtype());
  const auto* src = static_cast<const uint8_t*>(c.raw());
  auto* dst = static_cast<uint8_t*>(t.raw());
  for (int64_t n = 0; n < s[0]; ++n) {
    for (int64_t ch = 0; ch < s[1]; ++ch) {
      for (int64_t h = 0; h < s[2]; ++h) {
        for (int64_t w = 0; w < s[3]; ++w) {
          const int64_t from = ((n * s[1] + ch) * s[2] + h) * s[3] + w;
          const int64_t to = ((n * s[2] + h) * s[3] + w) * s[1] + ch;
          std::copy(src + from * e, src + (from + 1) * e, dst + to * e);
        }
      }
    }
  }
  return t;
}

AttributeValue IntsValue(std::vector<int64_t> v) {
  AttributeValue a;
  a.kind = AttributeValue::Kind::kInts;
  a.ints = std::move(v);
  return a;
}

// channels_last = 1.
void SetChannelsLast(Attributes* attrs) {
  AttributeValue on;
  on.kind = AttributeValue::Kind::kInt;
  on.i = 1;
  attrs->Set(kChannelsLast, on);
}

class Converter {
 public:
  explicit Converter(const Graph& g) : g_(g), out_(g) {
    for (const ValueInfo& in : g.inputs) nchw_.insert(in.name);
    for (const auto& kv : g.constants) nchw_.insert(kv.first);
    for (const Node& n : g.nodes) names_.insert(n.outputs.begin(), n.outputs.end());
    names_.insert(nchw_.begin(), nchw_.end());
  }

  Graph Run(ChannelsLastCount* count) {
    const std::vector<size_t> order = GraphIndex(g_).TopologicalOrder();
    if (count) *count = {};
    if (order.size() != g_.nodes.size()) return g_;  // a cycle: the session refuses the graph
    for (size_t i : order) {
      const Node& n = g_.nodes[i];
      const bool converted =
          Convert(n) || Pool(n) || WindowPool(n) || Normalize(n) || Concat(n) || Resize(n) || Follow(n);
      if (!converted) Keep(n);
    }
    for (const ValueInfo& o : g_.outputs) Nchw(o.name);
    if (count) *count = count_;
    if (count_.convs == 0) return g_;
    out_.nodes = std::move(nodes_);
    out_.opsets[kFusedDomain] = 1;
    return std::move(out_);
  }

 private:
  std::string Fresh(const std::string& base) {
    std::string name = base;
    for (int i = 1; names_.count(name); ++i) name = base + "." + std::to_string(i);
    names_.insert(name);
    return name;
  }

  void AddTranspose(const std::string& from, const std::string& to, std::vector<int64_t> perm) {
    Node t;
    t.name = to + "/transpose";
    t.op_type = "Transpose";
    t.inputs = {from};
    t.outputs = {to};
    t.attrs.Set("perm", IntsValue(std::move(perm)));
    nodes_.push_back(std::move(t));
    ++count_.transposes;
  }

  // The channels-last twin of tensor `name`, made by a Transpose when it has none.
  const std::string& Twin(const std::string& name) {
    auto it = twin_.find(name);
    if (it != twin_.end()) return it->second;
    const std::string t = Fresh(name + "/nhwc");
    AddTranspose(name, t, {0, 2, 3, 1});
    return twin_[name] = t;
  }

  // Makes sure `name` itself exists (from its twin) for a reader that needs it as written.
  void Nchw(const std::string& name) {
    if (name.empty() || nchw_.count(name)) return;
    const auto it = twin_.find(name);
    if (it == twin_.end()) return;  // produced by a node not yet seen: the session reports it
    AddTranspose(it->second, name, {0, 3, 1, 2});
    nchw_.insert(name);
  }

  bool Convert(const Node& n) {
    std::string op;
    const int wi = ConvWeightInput(n, &op);
    if (wi < 0 || n.inputs.size() <= static_cast<size_t>(wi) || n.outputs.size() != 1 || n.inputs[0].empty()) {
      return false;
    }
    const auto w = g_.constants.find(n.inputs[static_cast<size_t>(wi)]);
    if (w == g_.constants.end() || w->second.rank() != 4) return false;
    const bool float_conv = op == "FusedConv";
    // The residual of a fused convolution is data like X; the other inputs are parameters.
    const size_t residual = float_conv ? 3 : op == "ConvIntegerToFloat" ? kToFloatResidual : n.inputs.size();
    if (float_conv && w->second.dtype() != DataType::kFloat) return false;
    Node c = n;
    c.domain = kFusedDomain;
    c.op_type = op;
    SetChannelsLast(&c.attrs);
    c.inputs[0] = Twin(n.inputs[0]);
    c.outputs = {twin_[n.outputs[0]] = Fresh(n.outputs[0] + "/nhwc")};
    for (size_t i = 1; i < c.inputs.size(); ++i) {
      if (i == residual && !c.inputs[i].empty()) {
        c.inputs[i] = Twin(c.inputs[i]);
      } else {
        Nchw(c.inputs[i]);
      }
    }
    nodes_.push_back(std::move(c));
    ++count_.convs;
    return true;
  }

  // A global average pool of a tensor with a twin: [N, 1, 1, C] channels last, which holds the values of
  // [N, C, 1, 1] in the same order (a Transpose back is free: a view).
  bool Pool(const Node& n) {
    const bool float_pool = n.domain.empty() && n.op_type == "GlobalAveragePool";
    const bool int_pool = n.domain == kFusedDomain && n.op_type == "QLinearGlobalAveragePool";
    if ((!float_pool && !int_pool) || n.inputs.empty() || n.outputs.size() != 1 || !twin_.count(n.inputs[0])) {
      return false;
    }
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = twin_[n.inputs[0]];
    for (size_t i = 1; i < inputs.size(); ++i) Nchw(inputs[i]);
    Emit(n, true, std::move(inputs), n.attrs);
    return true;
  }

  // A MaxPool of a 4-D tensor with a twin and no Indices output: the ptq.fused kernel pools channels last.
  bool WindowPool(const Node& n) {
    if (!n.domain.empty() || n.op_type != "MaxPool" || n.inputs.size() != 1 || !twin_.count(n.inputs[0]) ||
        n.outputs.empty() || (n.outputs.size() > 1 && !n.outputs[1].empty()) ||
        n.attrs.GetInts("kernel_shape", {}).size() != 2 || n.attrs.GetInt("storage_order", 0) != 0) {
      return false;
    }
    Emit(n, true, {twin_[n.inputs[0]]}, n.attrs);
    return true;
  }

  // Emits n reading `inputs` (twins and constants), with `attrs` (and channels_last when `fused`: then the
  // ptq.fused kernel of the op runs it), writing the twin of its output.
  void Emit(const Node& n, bool fused, std::vector<std::string> inputs, Attributes attrs) {
    Node f = n;
    if (fused) {
      f.domain = kFusedDomain;
      SetChannelsLast(&attrs);
    }
    f.attrs = std::move(attrs);
    f.inputs = std::move(inputs);
    f.outputs = {twin_[n.outputs[0]] = Fresh(n.outputs[0] + "/nhwc")};
    nodes_.push_back(std::move(f));
    ++count_.followers;
  }

  // BatchNormalization (inference, per channel, constant parameters) of a tensor with a twin, or its fused form
  // (FuseBatchNorms: a per-channel bias before, read as C values whatever its shape; a clamp; a quantized output):
  // the ptq.fused kernel normalises along the last axis.
  bool Normalize(const Node& n) {
    const bool fused = n.domain == kFusedDomain && n.attrs.GetInt(kChannelsLast, 0) == 0 && n.inputs.size() <= 8;
    if ((!n.domain.empty() && !fused) || n.op_type != "BatchNormalization" || n.inputs.size() < 5 ||
        (n.inputs.size() > 5 && !fused) || n.outputs.size() != 1 || !twin_.count(n.inputs[0]) ||
        n.attrs.GetInt("spatial", 1) != 1 || n.attrs.GetInt("training_mode", 0) != 0) {
      return false;
    }
    for (size_t i = 1; i < 5; ++i) {
      if (!g_.constants.count(n.inputs[i])) return false;
    }
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = twin_[n.inputs[0]];
    Emit(n, true, std::move(inputs), n.attrs);
    return true;
  }

  // Concat of tensors with twins (or constants, transposed once) along an axis of the 4-D tensors: the
  // same along that axis's place channels last.
  bool Concat(const Node& n) {
    if (!n.domain.empty() || n.op_type != "Concat" || n.outputs.size() != 1 || n.inputs.empty()) return false;
    const int64_t axis = n.attrs.GetInt("axis", 1);
    if (axis < -4 || axis > 3) return false;
    std::vector<std::string> inputs = n.inputs;
    for (std::string& in : inputs) {
      const auto c = g_.constants.find(in);
      if (twin_.count(in)) {
        in = twin_[in];
      } else if (c != g_.constants.end() && c->second.rank() == 4) {
        in = ConstantTwin(in, c->second);
      } else {
        return false;
      }
    }
    static constexpr int64_t kChannelsLastAxis[4] = {0, 3, 1, 2};  // NCHW axis -> its place in NHWC
    Attributes attrs = n.attrs;
    AttributeValue a;
    a.kind = AttributeValue::Kind::kInt;
    a.i = kChannelsLastAxis[(axis + 4) % 4];
    attrs.Set("axis", a);
    Emit(n, false, std::move(inputs), std::move(attrs));
    return true;
  }

  // Resize (opset 11+, no axes attribute) of a tensor with a twin by constant scales or sizes (and roi):
  // the same per-axis values, in NHWC order.
  bool Resize(const Node& n) {
    if (!n.domain.empty() || n.op_type != "Resize" || n.outputs.size() != 1 || n.inputs.size() < 3 ||
        !twin_.count(n.inputs[0]) || n.attrs.Has("axes") || g_.OpsetFor("") < 11) {
      return false;
    }
    std::vector<std::string> inputs = n.inputs;
    inputs[0] = twin_[n.inputs[0]];
    for (size_t i = 1; i < inputs.size(); ++i) {
      if (inputs[i].empty()) continue;
      const auto c = g_.constants.find(inputs[i]);
      if (c == g_.constants.end() || c->second.rank() != 1) return false;
      const int64_t per_axis = c->second.size() / 4;  // roi holds starts and ends: 8 values
      if (c->second.size() == 0) continue;
      if (per_axis * 4 != c->second.size() || per_axis > 2) return false;
      inputs[i] = PermutedAxesConstant(inputs[i], c->second);
    }
    Emit(n, false, std::move(inputs), n.attrs);
    return true;
  }

  // A 1-D constant of 4 (or 2 x 4) per-axis values in NCHW order, in NHWC order.
  const std::string& PermutedAxesConstant(const std::string& name, const Tensor& value) {
    auto it = constant_twin_.find(name);
    if (it != constant_twin_.end()) return it->second;
    Tensor t = Tensor::Uninitialized(value.dtype(), value.shape());
    const size_t e = ElementSize(value.dtype());
    const auto* src = static_cast<const uint8_t*>(value.raw());
    auto* dst = static_cast<uint8_t*>(t.raw());
    static constexpr int64_t kFrom[4] = {0, 2, 3, 1};  // NHWC axis k is NCHW axis kFrom[k]
    for (int64_t half = 0; half < value.size() / 4; ++half) {
      for (int64_t k = 0; k < 4; ++k) std::memcpy(dst + (half * 4 + k) * e, src + (half * 4 + kFrom[k]) * e, e);
    }
    const std::string twin = Fresh(name + "/nhwc");
    out_.constants[twin] = std::move(t);
    return constant_twin_[name] = twin;
  }

  bool Follow(const Node& n) {
    FollowRule rule;
    if (!FollowRuleOf(n, &rule) || n.outputs[0].empty()) return false;
    std::vector<std::string> inputs = n.inputs;
    bool any_twin = false;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& in = n.inputs[i];
      const bool data = std::find(rule.data.begin(), rule.data.end(), i) != rule.data.end();
      const auto c = in.empty() ? g_.constants.end() : g_.constants.find(in);
      if (in.empty()) continue;
      if (!data) {  // a parameter: constant, one value unless the rule allows more
        if (c == g_.constants.end() || (rule.other_inputs_scalar && c->second.size() != 1)) return false;
        continue;
      }
      if (twin_.count(in)) {
        inputs[i] = twin_[in];
        any_twin = true;
      } else if (c == g_.constants.end() || c->second.rank() > 4) {
        return false;  // a computed tensor without a twin (its rank is not known here)
      } else if (c->second.size() != 1) {
        inputs[i] = ConstantTwin(in, c->second);
      }
    }
    if (!any_twin) return false;
    Node f = n;
    f.inputs = std::move(inputs);
    f.outputs = {twin_[n.outputs[0]] = Fresh(n.outputs[0] + "/nhwc")};
    nodes_.push_back(std::move(f));
    ++count_.followers;
    return true;
  }

  const std::string& ConstantTwin(const std::string& name, const Tensor& value) {
    auto it = constant_twin_.find(name);
    if (it != constant_twin_.end()) return it->second;
    const std::string t = Fresh(name + "/nhwc");
    out_.constants[t] = ChannelsLastConstant(value);
    return constant_twin_[name] = t;
  }

  void Keep(const Node& n) {
    for (const std::string& in : n.inputs) Nchw(in);
    for (const std::string& in : n.implicit_inputs) Nchw(in);
    nodes_.push_back(n);
    nchw_.insert(n.outputs.begin(), n.outputs.end());
  }

  const Graph& g_;
  Graph out_;
  std::vector<Node> nodes_;
  std::set<std::string> nchw_;    // tensors that exist as written
  std::set<std::string> names_;   // every tensor name in use
  std::map<std::string, std::string> twin_;           // tensor -> its channels-last twin
  std::map<std::string, std::string> constant_twin_;  // constant -> its transposed copy
  ChannelsLastCount count_;
};

}  // namespace

Graph ToChannelsLast(const Graph& graph, ChannelsLastCount* count) {
  if (!graph.captures.empty()) {
    if (count) *count = {};
    return graph;
  }
  return Converter(graph).Run(count);
}

}  // namespace ptq
