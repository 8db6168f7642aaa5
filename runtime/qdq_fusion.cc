// FuseQdqGroups: match each MatMul/Conv whose inputs are dequantized 8-bit values, replace the group by
// one integer node, then drop the DequantizeLinear nodes nobody reads any more.
#include "runtime/qdq_fusion.h"

#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/op_registry.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

bool Is8Bit(DataType t) { return t == DataType::kUint8 || t == DataType::kInt8; }

class Fuser {
 public:
  explicit Fuser(const Graph& g) : g_(g) {
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      for (const std::string& o : g.nodes[i].outputs) producer_[o] = i;
      for (const std::string& in : g.nodes[i].inputs) ++reads_[in];
      for (const std::string& in : g.nodes[i].implicit_inputs) ++reads_[in];
    }
    for (const ValueInfo& o : g.outputs) ++reads_[o.name];
  }

  Graph Run(QdqFusionCount* count) {
    Graph out = g_;
    std::vector<bool> drop(g_.nodes.size(), false);
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (!n.domain.empty() || (n.op_type != "MatMul" && n.op_type != "Conv") || n.inputs.size() < 2) continue;
      const bool conv = n.op_type == "Conv";
      const Dq* x = Dequantized(n.inputs[0], false, 0);
      const Dq* w = x ? Dequantized(n.inputs[1], true, conv ? 0 : 1) : nullptr;
      if (!w) continue;
      // A MatMul's B may be computed (attention: Q K^T, weights V) when quantized per tensor.
      const Tensor* wq = Constant(w->node->inputs[0]);
      if (wq == nullptr ? conv || w->scale->size() != 1 : (conv ? wq->rank() < 3 : wq->rank() != 2)) continue;
      const int64_t channels = wq == nullptr ? 1 : conv ? wq->dim(0) : wq->dim(1);
      if (w->scale->size() != 1 && w->scale->size() != channels) continue;
      // The bias of a Conv, as QLinearConv's int32 (when exact) and as float values.
      const std::string bias = conv && n.inputs.size() > 2 ? n.inputs[2] : "";
      const Tensor* int_bias = nullptr;
      Tensor float_bias;
      if (!bias.empty() && !BiasOf(bias, *x, *w, channels, &int_bias, &float_bias)) continue;
      const size_t q = OnlyQuantizeReader(n.outputs[0]);
      const bool quantized = q != kNone && (bias.empty() || int_bias != nullptr);
      Node fused;
      fused.name = n.name;
      if (conv) fused.attrs = n.attrs;
      if (quantized) {
        const Node& qn = g_.nodes[q];
        fused.op_type = conv ? "QLinearConv" : "QLinearMatMul";
        fused.inputs = {x->node->inputs[0], x->node->inputs[1], x->node->inputs[2], w->node->inputs[0],
                        w->node->inputs[1], w->node->inputs[2], qn.inputs[1], qn.inputs[2]};
        if (int_bias) fused.inputs.push_back(g_.nodes[producer_.at(bias)].inputs[0]);
        fused.outputs = {qn.outputs[0]};
        drop[q] = true;
        ++count_.quantized_output;
      } else {
        fused.domain = kDomain;
        fused.op_type = conv ? "ConvIntegerToFloat" : "MatMulIntegerToFloat";
        fused.inputs = {x->node->inputs[0], w->node->inputs[0], x->node->inputs[1], w->node->inputs[1],
                        x->node->inputs[2], w->node->inputs[2]};
        if (!bias.empty()) {
          const std::string name = FreshName(n.outputs[0] + "/fused_bias", out);
          out.constants[name] = float_bias;
          fused.inputs.push_back(name);
        }
        fused.outputs = {n.outputs[0]};
        ++count_.float_output;
      }
      out.nodes[i] = std::move(fused);
    }
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (!n.domain.empty() || !kTableOps.count(n.op_type) || n.inputs.empty() || n.outputs.size() != 1) continue;
      const Dq* x = Dequantized(n.inputs[0], false, 0);
      const size_t q = x ? OnlyQuantizeReader(n.outputs[0]) : kNone;
      if (q == kNone) continue;
      Tensor table;
      if (!Table(*x, n, g_.nodes[q], &table)) continue;
      const std::string name = FreshName(n.outputs[0] + "/table", out);
      out.constants[name] = table;
      Node fused;
      fused.name = n.name;
      fused.domain = kDomain;
      fused.op_type = "LookupTable";
      fused.inputs = {x->node->inputs[0], name};
      fused.outputs = {g_.nodes[q].outputs[0]};
      out.nodes[i] = std::move(fused);
      drop[q] = true;
      ++count_.tables;
    }
    if (count_.total() == 0) {
      if (count) *count = count_;
      return g_;
    }
    if (count_.float_output + count_.tables > 0) out.opsets[kDomain] = 1;
    std::vector<Node> kept;
    for (size_t i = 0; i < out.nodes.size(); ++i) {
      if (!drop[i]) kept.push_back(std::move(out.nodes[i]));
    }
    out.nodes = RemoveUnreadDequantize(std::move(kept), out);
    if (count) *count = count_;
    return out;
  }

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  static constexpr const char* kDomain = "ptq.fused";

  struct Dq {
    const Node* node = nullptr;
    const Tensor* scale = nullptr;
    const Tensor* zero_point = nullptr;
  };

  const Tensor* Constant(const std::string& name) const {
    const auto it = g_.constants.find(name);
    return it == g_.constants.end() ? nullptr : &it->second;
  }

  // The DequantizeLinear producing `name` with constant float scale and 8-bit zero point (of the same
  // type as a constant input when `weight`): per tensor, or per channel along `axis` for a weight.
  const Dq* Dequantized(const std::string& name, bool weight, int64_t axis) {
    const auto p = producer_.find(name);
    if (p == producer_.end()) return nullptr;
    const Node& n = g_.nodes[p->second];
    if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() < 3 || n.inputs[2].empty()) {
      return nullptr;
    }
    if (n.attrs.Has("block_size")) return nullptr;
    Dq& d = dq_[name];
    d.node = &n;
    d.scale = Constant(n.inputs[1]);
    d.zero_point = Constant(n.inputs[2]);
    if (!d.scale || !d.zero_point || d.scale->dtype() != DataType::kFloat || !Is8Bit(d.zero_point->dtype())) {
      return nullptr;
    }
    if (d.scale->size() != d.zero_point->size() || d.scale->rank() > 1) return nullptr;
    if (!weight) return d.scale->size() == 1 ? &d : nullptr;
    const Tensor* q = Constant(n.inputs[0]);
    if (d.scale->size() == 1) return !q || q->dtype() == d.zero_point->dtype() ? &d : nullptr;
    if (!q || q->dtype() != d.zero_point->dtype()) return nullptr;
    const int64_t a = n.attrs.GetInt("axis", 1);
    return q->rank() > axis && (a == axis || a == axis - q->rank()) ? &d : nullptr;
  }

  // Conv's bias: a float constant, or the DequantizeLinear of constants; *int_bias is set when the
  // latter is int32 with zero point 0 and scale x_scale * w_scale[m] per channel (QLinearConv's bias).
  bool BiasOf(const std::string& name, const Dq& x, const Dq& w, int64_t channels, const Tensor** int_bias,
              Tensor* float_bias) const {
    if (const Tensor* b = Constant(name)) {
      if (b->dtype() != DataType::kFloat || b->size() != channels) return false;
      *float_bias = *b;
      return true;
    }
    const auto p = producer_.find(name);
    if (p == producer_.end()) return false;
    const Node& n = g_.nodes[p->second];
    if (!n.domain.empty() || n.op_type != "DequantizeLinear" || n.inputs.size() < 2) return false;
    const Tensor* q = Constant(n.inputs[0]);
    const Tensor* scale = Constant(n.inputs[1]);
    const Tensor* zp = n.inputs.size() > 2 && !n.inputs[2].empty() ? Constant(n.inputs[2]) : nullptr;
    if (!q || !scale || q->dtype() != DataType::kInt32 || q->size() != channels || scale->dtype() != DataType::kFloat) {
      return false;
    }
    if (scale->size() != 1 && scale->size() != channels) return false;
    if (n.inputs.size() > 2 && !n.inputs[2].empty() && (!zp || zp->dtype() != DataType::kInt32 || zp->size() != scale->size())) {
      return false;
    }
    *float_bias = Tensor(DataType::kFloat, {channels});
    bool exact = true;
    const float xs = x.scale->data<float>()[0];
    for (int64_t m = 0; m < channels; ++m) {
      const int64_t j = scale->size() == 1 ? 0 : m;
      const int32_t z = zp ? zp->data<int32_t>()[j] : 0;
      const float s = scale->data<float>()[j];
      float_bias->data<float>()[m] = DequantizeValue(q->data<int32_t>()[m], s, z);
      const float product = xs * w.scale->data<float>()[w.scale->size() == 1 ? 0 : m];
      exact = exact && z == 0 && std::memcmp(&s, &product, sizeof(s)) == 0;
    }
    if (exact) *int_bias = q;
    return true;
  }

  // The QuantizeLinear that is the only reader of `name` (per-tensor constant scale and 8-bit zero
  // point), or kNone; `name` must not be a graph output.
  size_t OnlyQuantizeReader(const std::string& name) const {
    const auto r = reads_.find(name);
    if (r == reads_.end() || r->second != 1) return kNone;
    for (const ValueInfo& o : g_.outputs) {
      if (o.name == name) return kNone;
    }
    for (size_t i = 0; i < g_.nodes.size(); ++i) {
      const Node& n = g_.nodes[i];
      if (n.inputs.empty() || n.inputs[0] != name) continue;
      if (!n.domain.empty() || n.op_type != "QuantizeLinear" || n.inputs.size() < 3 || n.inputs[2].empty()) return kNone;
      const Tensor* scale = Constant(n.inputs[1]);
      const Tensor* zp = Constant(n.inputs[2]);
      if (!scale || !zp || scale->dtype() != DataType::kFloat || scale->size() != 1 || zp->size() != 1 ||
          !Is8Bit(zp->dtype())) {
        return kNone;
      }
      return i;
    }
    return kNone;
  }

  // The unary element-wise ops a table can stand for (one tensor input; Clip's bounds constant).
  inline static const std::set<std::string> kTableOps = {
      "Abs", "Ceil", "Celu", "Clip", "Cos", "Elu", "Erf", "Exp", "Floor", "Gelu", "HardSigmoid", "HardSwish",
      "LeakyRelu", "Log", "Mish", "Neg", "Reciprocal", "Relu", "Round", "Selu", "Sigmoid", "Sign", "Sin", "Softplus",
      "Softsign", "Sqrt", "Tanh", "ThresholdedRelu"};

  // Runs node n's kernel on `inputs`; its first output.
  Tensor Evaluate(const Node& n, const std::vector<const Tensor*>& inputs) const {
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

  // *table = QuantizeLinear(op(DequantizeLinear(b))) for the 256 byte patterns b of x's type, each node
  // by its own kernel; false when the op reads a computed input or a kernel refuses (the literal run
  // then reports it).
  bool Table(const Dq& x, const Node& op, const Node& q, Tensor* table) const {
    std::vector<const Tensor*> op_inputs = {nullptr};
    for (size_t i = 1; i < op.inputs.size(); ++i) {
      if (op.inputs[i].empty()) {
        op_inputs.push_back(nullptr);
        continue;
      }
      const Tensor* c = Constant(op.inputs[i]);
      if (c == nullptr) return false;
      op_inputs.push_back(c);
    }
    try {
      Tensor bytes(x.zero_point->dtype(), {256});
      for (int b = 0; b < 256; ++b) static_cast<uint8_t*>(bytes.raw())[b] = static_cast<uint8_t>(b);
      const Tensor real = Evaluate(*x.node, {&bytes, x.scale, x.zero_point});
      op_inputs[0] = &real;
      const Tensor applied = Evaluate(op, op_inputs);
      if (applied.dtype() != DataType::kFloat || applied.size() != 256) return false;
      *table = Evaluate(q, {&applied, Constant(q.inputs[1]), Constant(q.inputs[2])});
      return Is8Bit(table->dtype()) && table->size() == 256;
    } catch (const Error&) {
      return false;
    }
  }

  static std::string FreshName(const std::string& base, const Graph& g) {
    std::string name = base;
    for (int i = 1; g.constants.count(name); ++i) name = base + "." + std::to_string(i);
    return name;
  }

  // Drops DequantizeLinear nodes whose output no node and no graph output reads, until none is left.
  static std::vector<Node> RemoveUnreadDequantize(std::vector<Node> nodes, const Graph& g) {
    for (bool changed = true; changed;) {
      changed = false;
      std::set<std::string> read;
      for (const Node& n : nodes) {
        read.insert(n.inputs.begin(), n.inputs.end());
        read.insert(n.implicit_inputs.begin(), n.implicit_inputs.end());
      }
      for (const ValueInfo& o : g.outputs) read.insert(o.name);
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
    return nodes;
  }

  const Graph& g_;
  std::map<std::string, size_t> producer_;
  std::map<std::string, int> reads_;
  std::map<std::string, Dq> dq_;
  QdqFusionCount count_;
};

}  // namespace

Graph FuseQdqGroups(const Graph& graph, QdqFusionCount* count) { return Fuser(graph).Run(count); }

}  // namespace ptq
