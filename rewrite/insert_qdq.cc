// Pass: the QDQ form of the plan: Q -> DQ on planned activations, int8 weights and int32 biases behind
// DequantizeLinear. New nodes and tensors are named after the tensor they quantize.
#include "rewrite/passes.h"

#include <map>
#include <tuple>

#include "rewrite/qdq_util.h"
#include "runtime/error.h"

namespace ptq {
namespace {

class QdqInserter {
 public:
  QdqInserter(RewriteGraph* g, const QuantPlan& plan) : g_(g), plan_(plan) {}

  // Q(x) -> DQ, once per tensor; the caller points the readers that read quantized at the DQ output
  // (float readers and graph outputs keep the float x). Returns the DQ output.
  std::string Activation(const std::string& x0) {
    const std::string x = Original(x0);
    auto it = dq_of_.find(x);
    if (it != dq_of_.end()) return it->second;
    const TensorQuant& q = plan_.params.at(x);
    const auto [scale, zp] = AddQuantParams(g_, x, q);
    const std::string xq = g_->NewName(x + "/quantized");
    const std::string xd = g_->NewName(x + "/dequantized");
    g_->SetTwin(xq, x);
    g_->AddNode("QuantizeLinear", {x, scale, zp}, {xq}, g_->NewName(x + "/QuantizeLinear"));
    g_->AddNode("DequantizeLinear", {xq, scale, zp}, {xd}, g_->NewName(x + "/DequantizeLinear"));
    dq_of_[x] = xd;
    original_[xd] = x;
    return xd;
  }

  // The tensor a DQ output of ours stands for (its name before this pass), else the name itself.
  std::string Original(const std::string& t) const {
    auto it = original_.find(t);
    return it == original_.end() ? t : it->second;
  }

  // int8 initializer + DQ (per channel along q.axis). One copy per weight and parameters: consumers
  // that agree share it. Returns the DQ output.
  std::string Weight(const std::string& w, const TensorQuant& q) {
    const auto key = std::make_tuple(w, q.dtype, q.axis, q.scales, q.zero_points);
    auto it = weight_dq_.find(key);
    if (it != weight_dq_.end()) return it->second;
    const std::string wq = g_->NewName(w + "/quantized");
    g_->AddInitializer(wq, QuantizeWeight(g_->InitializerValue(w), q, w));
    const auto [scale, zp] = AddQuantParams(g_, w, q);
    const std::string wd = g_->NewName(w + "/dequantized");
    const int n = g_->AddNode("DequantizeLinear", {wq, scale, zp}, {wd}, g_->NewName(w + "/DequantizeLinear"));
    if (!q.per_tensor()) g_->SetIntAttribute(n, "axis", q.axis);
    weight_dq_[key] = wd;
    original_[wd] = w;
    return wd;
  }

  // int32 bias round(b / (x_scale * w_scale)) + DQ with that scale (axis 0). Returns the DQ output.
  // `shift` (bias correction, may be empty) is subtracted from the float bias first.
  std::string Bias(const std::string& b, const std::string& x, const TensorQuant& qw, const std::vector<float>& shift) {
    const TensorQuant& qx = plan_.params.at(Original(x));
    Tensor bias = g_->InitializerValue(b);
    PTQ_ENFORCE(bias.dtype() == DataType::kFloat && bias.rank() == 1, "bias '", b, "' must be a float vector");
    if (!shift.empty()) {
      PTQ_ENFORCE(static_cast<int64_t>(shift.size()) == bias.size(), "bias '", b, "': ", shift.size(), " corrections for ",
                  bias.size(), " channels");
      std::vector<float> corrected = bias.ToFloatVector();  // the graph's value is shared: changed in a copy
      for (size_t c = 0; c < corrected.size(); ++c) corrected[c] -= shift[c];
      bias = Tensor::FromVector<float>(bias.shape(), corrected);
    }
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
    if (!qb.per_tensor()) g_->SetIntAttribute(n, "axis", 0);
    return bd;
  }

 private:
  RewriteGraph* g_;
  const QuantPlan& plan_;
  std::map<std::string, std::string> dq_of_;
  std::map<std::tuple<std::string, DataType, int64_t, std::vector<float>, std::vector<int32_t>>, std::string> weight_dq_;
  std::map<std::string, std::string> original_;
};

}  // namespace

bool InsertQdq(RewriteGraph* g, const QuantPlan& plan) {
  // Idempotent: a graph that already has QuantizeLinear/DequantizeLinear nodes is left alone (the
  // rewriter refuses quantized models before running passes).
  for (int i = 0; i < g->size(); ++i) {
    const std::string& op = g->node(i).op_type();
    if (op == "QuantizeLinear" || op == "DequantizeLinear") return false;
  }
  QdqInserter ins(g, plan);
  bool changed = false;
  for (const auto& [index, nq] : plan.nodes) {
    // Copy the node: inserting nodes may reallocate the node slots.
    const onnx::NodeProto node = g->node(index);
    for (size_t k = 0; k < nq.inputs.size(); ++k) {
      const int slot = static_cast<int>(k);
      switch (nq.inputs[k]) {
        case InputRole::kActivation: g->SetInput(index, slot, ins.Activation(node.input(slot))); break;
        case InputRole::kWeight: g->SetInput(index, slot, ins.Weight(node.input(slot), nq.weight)); break;
        case InputRole::kBias:
          g->SetInput(index, slot, ins.Bias(node.input(slot), node.input(0), nq.weight, nq.bias_shift));
          break;
        case InputRole::kFloat: break;
      }
    }
    if (nq.bias_add >= 0) {
      const onnx::NodeProto add = g->node(nq.bias_add);
      const int bias_slot = add.input(0) == node.output(0) ? 1 : 0;
      g->SetInput(nq.bias_add, bias_slot, ins.Bias(add.input(bias_slot), node.input(0), nq.weight, nq.bias_shift));
    }
    if (!nq.bias_shift.empty() && node.op_type() == "Conv" && (node.input_size() < 3 || node.input(2).empty())) {
      // Bias correction of a Conv without a bias: a zero bias to correct.
      const std::string b = g->NewName((node.name().empty() ? node.output(0) : node.name()) + "/bias");
      g->AddInitializer(b, Tensor(DataType::kFloat, {static_cast<int64_t>(nq.bias_shift.size())}));
      g->AddInput(index, ins.Bias(b, node.input(0), nq.weight, nq.bias_shift));
    }
    if (nq.fused_clamp >= 0) {  // the Relu's or Clip's output is now written by the node (or its bias Add)
      const std::string relu_output = g->node(nq.fused_clamp).output(0);
      g->RemoveNode(nq.fused_clamp);
      g->SetOutput(nq.bias_add >= 0 ? nq.bias_add : index, 0, relu_output);
    }
    if (nq.quantize_output) ins.Activation(nq.output);
    changed = true;
  }
  // Data-movement nodes between integer nodes read the quantized input (the 8-bit tensor flows).
  for (int r : plan.int8_passthrough) {
    const std::string x = g->node(r).input(0);
    g->SetInput(r, 0, ins.Activation(x));
    changed = true;
  }
  return changed;
}

}  // namespace ptq
