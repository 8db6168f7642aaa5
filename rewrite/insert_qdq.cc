// Pass: the QDQ form of the plan: Q -> DQ on planned activations, int8 weights and int32 biases behind
// DequantizeLinear. New nodes and tensors are named after the tensor they quantize.
#include "rewrite/passes.h"

#include <map>

#include "rewrite/qdq_util.h"
#include "runtime/error.h"

namespace ptq {
namespace {

class QdqInserter {
 public:
  QdqInserter(RewriteGraph* g, const QuantPlan& plan) : g_(g), plan_(plan) {}

  // Q(x) -> DQ -> every reader of x (graph outputs keep the float x). Returns the DQ output.
  std::string Activation(const std::string& x0) {
    const std::string x = Original(x0);
    auto it = dq_of_.find(x);
    if (it != dq_of_.end()) return it->second;
    const TensorQuant& q = plan_.params.at(x);
    const auto [scale, zp] = AddQuantParams(g_, x, q);
    const std::string xq = g_->NewName(x + "/quantized");
    const std::string xd = g_->NewName(x + "/dequantized");
    const std::vector<int> readers = g_->Consumers(x);
    g_->AddNode("QuantizeLinear", {x, scale, zp}, {xq}, g_->NewName(x + "/QuantizeLinear"));
    g_->AddNode("DequantizeLinear", {xq, scale, zp}, {xd}, g_->NewName(x + "/DequantizeLinear"));
    for (int r : readers) {
      auto& n = g_->nodes()[static_cast<size_t>(r)];
      for (int k = 0; k < n.input_size(); ++k) {
        if (n.input(k) == x) n.set_input(k, xd);
      }
    }
    dq_of_[x] = xd;
    original_[xd] = x;
    return xd;
  }

  // The tensor a DQ output of ours stands for (its name before this pass), else the name itself.
  std::string Original(const std::string& t) const {
    auto it = original_.find(t);
    return it == original_.end() ? t : it->second;
  }

  // int8 initializer + DQ (per channel along the table's axis). Returns the DQ output.
  std::string Weight(const std::string& w) {
    auto it = dq_of_.find(w);
    if (it != dq_of_.end()) return it->second;
    const TensorQuant& q = plan_.params.at(w);
    const std::string wq = g_->NewName(w + "/quantized");
    g_->AddInitializer(wq, QuantizeWeight(g_->InitializerValue(w), q, w));
    const auto [scale, zp] = AddQuantParams(g_, w, q);
    const std::string wd = g_->NewName(w + "/dequantized");
    const int n = g_->AddNode("DequantizeLinear", {wq, scale, zp}, {wd}, g_->NewName(w + "/DequantizeLinear"));
    if (!q.per_tensor()) SetIntAttr(&g_->nodes()[static_cast<size_t>(n)], "axis", q.axis);
    dq_of_[w] = wd;
    original_[wd] = w;
    return wd;
  }

  // int32 bias round(b / (x_scale * w_scale)) + DQ with that scale (axis 0). Returns the DQ output.
  std::string Bias(const std::string& b, const std::string& x, const std::string& w) {
    const TensorQuant& qx = plan_.params.at(Original(x));
    const TensorQuant& qw = plan_.params.at(Original(w));
    const Tensor bias = g_->InitializerValue(b);
    PTQ_ENFORCE(bias.dtype() == DataType::kFloat && bias.rank() == 1, "bias '", b, "' must be a float vector");
    const std::string bq = g_->NewName(b + "/quantized");
    g_->AddInitializer(bq, QuantizeBiasTensor(bias, qx.scales[0], qw.scales));
    TensorQuant qb;
    qb.dtype = DataType::kInt32;
    for (float s : qw.scales) qb.scales.push_back(qx.scales[0] * s);
    qb.zero_points.assign(qb.scales.size(), 0);
    qb.axis = 0;
    const auto [scale, zp] = AddQuantParams(g_, b, qb);
    const std::string bd = g_->NewName(b + "/dequantized");
    const int n = g_->AddNode("DequantizeLinear", {bq, scale, zp}, {bd}, g_->NewName(b + "/DequantizeLinear"));
    if (!qb.per_tensor()) SetIntAttr(&g_->nodes()[static_cast<size_t>(n)], "axis", 0);
    return bd;
  }

 private:
  RewriteGraph* g_;
  const QuantPlan& plan_;
  std::map<std::string, std::string> dq_of_;
  std::map<std::string, std::string> original_;
};

}  // namespace

bool InsertQdq(RewriteGraph* g, const QuantPlan& plan) {
  // Idempotent: a graph that already has QuantizeLinear/DequantizeLinear nodes is left alone (the
  // rewriter refuses quantized models before running passes).
  for (const auto& n : g->nodes()) {
    if (n.op_type() == "QuantizeLinear" || n.op_type() == "DequantizeLinear") return false;
  }
  QdqInserter ins(g, plan);
  bool changed = false;
  for (const auto& [index, nq] : plan.nodes) {
    // Copy the names first: inserting nodes may reallocate the node vector.
    const onnx::NodeProto node = g->nodes()[static_cast<size_t>(index)];
    std::vector<std::string> inputs(node.input().begin(), node.input().end());
    for (size_t k = 0; k < nq.inputs.size(); ++k) {
      switch (nq.inputs[k]) {
        case InputRole::kActivation: inputs[k] = ins.Activation(node.input(static_cast<int>(k))); break;
        case InputRole::kWeight: inputs[k] = ins.Weight(node.input(static_cast<int>(k))); break;
        case InputRole::kBias: inputs[k] = ins.Bias(node.input(static_cast<int>(k)), node.input(0), node.input(1)); break;
        case InputRole::kFloat: break;
      }
    }
    auto& live = g->nodes()[static_cast<size_t>(index)];
    for (size_t k = 0; k < inputs.size(); ++k) live.set_input(static_cast<int>(k), inputs[k]);
    if (nq.bias_add >= 0) {
      const onnx::NodeProto add = g->nodes()[static_cast<size_t>(nq.bias_add)];
      const int bias_slot = add.input(0) == node.output(0) ? 1 : 0;
      const std::string bd = ins.Bias(add.input(bias_slot), node.input(0), node.input(1));
      g->nodes()[static_cast<size_t>(nq.bias_add)].set_input(bias_slot, bd);
    }
    if (nq.fused_relu >= 0) {  // the Relu's output is now written by the node (or its bias Add)
      const onnx::NodeProto relu = g->nodes()[static_cast<size_t>(nq.fused_relu)];
      const int writer = nq.bias_add >= 0 ? nq.bias_add : index;
      g->nodes()[static_cast<size_t>(writer)].set_output(0, relu.output(0));
      g->RemoveNode(nq.fused_relu);
    }
    if (nq.quantize_output) ins.Activation(nq.output);
    changed = true;
  }
  return changed;
}

}  // namespace ptq
