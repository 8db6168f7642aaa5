// MakeQuantPlan: rules per op type, attention roles, overrides and parameter sharing.
#include "rewrite/quant_plan.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "runtime/attention_pattern.h"
#include "runtime/error.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

bool Has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

// Parameters of `name` after the config's override, or nullptr when the table has none.
const TensorQuant* Lookup(const std::map<std::string, TensorQuant>& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? nullptr : &it->second;
}

void ApplyOverrides(const RewriteConfig& c, std::map<std::string, TensorQuant>* params) {
  for (const auto& [name, o] : c.overrides) {
    TensorQuant& q = (*params)[name];
    if (q.role.empty()) q.role = "activation";
    if (o.dtype != DataType::kUndefined) q.dtype = o.dtype;
    if (o.has_range) {
      const QuantParams p = ChooseQuantParams(o.min, o.max, q.dtype, c.activation_symmetric);
      q.scales = {p.scale};
      q.zero_points = {p.zero_point};
      q.axis = -1;
    } else if (o.has_scale) {
      q.scales = {o.scale};
      q.zero_points = {o.zero_point};
      q.axis = -1;
    } else if (q.scales.empty()) {
      ThrowUsageError("quantization.overrides.", name, ": the table has no parameters for this tensor; give min/max or scale");
    }
  }
}

// Data-movement chains X -> op -> Y: Y takes X's parameters when X has per-tensor ones (so that the
// int8 tensor flows through and QuantizeLinear(DequantizeLinear(.)) pairs cancel); X takes Y's when
// only Y has them and Y is X's only use (the bias Add before a Reshape gets its output's range).
void ShareThroughDataMovement(const RewriteGraph& g, std::map<std::string, TensorQuant>* params) {
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (const auto& n : g.nodes()) {
      if (n.op_type().empty() || !IsDataMovementOp(n.op_type()) || n.input_size() < 1 || n.output_size() < 1) continue;
      if (n.op_type() == "Concat" || n.op_type() == "Split") continue;  // several tensors: left alone
      const std::string& x = n.input(0);
      const std::string& y = n.output(0);
      const TensorQuant* px = Lookup(*params, x);
      const TensorQuant* py = Lookup(*params, y);
      if (px && px->per_tensor() && px->role != "weight") {
        if (!py || py->scales != px->scales || py->zero_points != px->zero_points || py->dtype != px->dtype) {
          TensorQuant q = *px;
          if (py) q.shape = py->shape;
          (*params)[y] = q;
          changed = true;
        }
      } else if (!px && py && py->per_tensor() && g.Consumers(x).size() == 1 && !g.IsGraphOutput(x) &&
                 !g.IsInitializer(x)) {
        TensorQuant q = *py;
        q.shape.clear();
        (*params)[x] = q;
        changed = true;
      }
    }
    if (!changed) break;
  }
}

// The Add(y, b) or Add(b, y) that is the only use of MatMul node i's output y, with b a constant of
// shape [N] (N = the weight's column count); -1 when there is none.
int FindBiasAdd(const RewriteGraph& g, int i) {
  const onnx::NodeProto& mm = g.nodes()[static_cast<size_t>(i)];
  const std::string& y = mm.output(0);
  const std::vector<int> users = g.Consumers(y);
  if (users.size() != 1 || g.IsGraphOutput(y)) return -1;
  const onnx::NodeProto& add = g.nodes()[static_cast<size_t>(users[0])];
  if (add.op_type() != "Add" || add.input_size() != 2) return -1;
  const std::string& b = add.input(0) == y ? add.input(1) : add.input(0);
  if (b == y || !g.IsInitializer(b)) return -1;
  const onnx::TensorProto& bt = g.Initializer(b);
  const onnx::TensorProto& wt = g.Initializer(mm.input(1));
  if (bt.data_type() != onnx::TensorProto::FLOAT || bt.dims_size() != 1 || wt.dims_size() != 2 ||
      bt.dims(0) != wt.dims(1)) {
    return -1;
  }
  return users[0];
}

// The Relu that is the only reader of `y`, when its output is quantized per tensor with the zero point
// at the type's minimum: quantizing y with those parameters clamps negatives to 0 exactly as Relu
// would, so the Relu can go. -1 otherwise.
int FindExactRelu(const RewriteGraph& g, const std::string& y, const std::map<std::string, TensorQuant>& params) {
  const std::vector<int> users = g.Consumers(y);
  if (users.size() != 1 || g.IsGraphOutput(y)) return -1;
  const onnx::NodeProto& r = g.nodes()[static_cast<size_t>(users[0])];
  if (r.op_type() != "Relu") return -1;
  const TensorQuant* q = Lookup(params, r.output(0));
  if (!q || !q->per_tensor() || q->role == "weight") return -1;
  const int32_t qmin = q->dtype == DataType::kInt8 ? -128 : 0;
  return q->zero_points[0] == qmin ? users[0] : -1;
}

// Gather from a constant float table of rank 2 (an embedding): int8, symmetric, one scale for the
// table (rows are gathered, so a per-row scale could not follow them), from its min and max.
std::optional<TensorQuant> EmbeddingParams(const RewriteGraph& g, const onnx::NodeProto& n) {
  if (n.input_size() < 2 || !g.IsInitializer(n.input(0)) || GetIntAttr(n, "axis", 0) != 0) return std::nullopt;
  const onnx::TensorProto& t = g.Initializer(n.input(0));
  if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() != 2) return std::nullopt;
  const Tensor w = g.InitializerValue(n.input(0));
  float lo = 0, hi = 0;
  for (int64_t i = 0; i < w.size(); ++i) {
    const float v = w.data<float>()[i];
    if (!std::isfinite(v)) return std::nullopt;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  const QuantParams p = ChooseQuantParams(lo, hi, DataType::kInt8, /*symmetric=*/true);
  TensorQuant q;
  q.role = "weight";
  q.dtype = DataType::kInt8;
  q.scales = {p.scale};
  q.zero_points = {p.zero_point};
  q.shape = w.shape();
  return q;
}

}  // namespace

bool IsDataMovementOp(const std::string& op) {
  static const std::set<std::string> kOps = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten",
                                             "Identity", "MaxPool", "Slice", "Gather", "Concat", "Split"};
  return kOps.count(op) > 0;
}

QuantPlan MakeQuantPlan(const RewriteGraph& g, const onnx::ModelProto& model, const QuantTable& table,
                        const RewriteConfig& config) {
  QuantPlan plan;
  plan.params = table.tensors;
  ApplyOverrides(config, &plan.params);
  ShareThroughDataMovement(g, &plan.params);

  // Attention roles, by the output names of the MatMuls.
  std::set<std::string> qk_outputs, pv_outputs;
  if (config.attention) {
    const Graph rg = GraphFromModel(model, g.model_dir(), "model");
    for (const AttentionMatch& m : FindAttention(rg)) {
      if (m.qk_matmul) qk_outputs.insert(m.qk_matmul->outputs[0]);
      if (m.pv_matmul) pv_outputs.insert(m.pv_matmul->outputs[0]);
    }
  }
  auto act = [&](const std::string& t) {
    const TensorQuant* q = Lookup(plan.params, t);
    return q && q->role != "weight" && q->per_tensor();
  };
  auto weight = [&](const std::string& t) {
    const TensorQuant* q = Lookup(plan.params, t);
    return q && q->role == "weight" && g.IsInitializer(t);
  };
  const auto& nodes = g.nodes();
  for (size_t i = 0; i < nodes.size(); ++i) {
    const onnx::NodeProto& n = nodes[i];
    const std::string& op = n.op_type();
    if (op == "Gather" && Has(config.op_types, "Gather")) {
      if (auto q = EmbeddingParams(g, n)) {
        if (IsExcluded(config, n.name())) continue;
        plan.params[n.input(0)] = *q;
        NodeQuant nq;
        nq.inputs = {InputRole::kWeight, InputRole::kFloat};
        nq.output = n.output(0);
        nq.why = "embedding";
        plan.nodes[static_cast<int>(i)] = nq;
      }
      continue;
    }
    if (op != "MatMul" && op != "Conv") continue;
    const std::string label = "node '" + n.name() + "' (" + op + ", output '" + n.output(0) + "')";
    const bool attention = qk_outputs.count(n.output(0)) || pv_outputs.count(n.output(0));
    if (!Has(config.op_types, op) && !(attention && op == "MatMul")) continue;
    if (IsExcluded(config, n.name())) {
      plan.skipped.push_back(label + ": excluded by quantization.exclude_nodes");
      continue;
    }
    NodeQuant nq;
    nq.inputs.assign(static_cast<size_t>(n.input_size()), InputRole::kFloat);
    if (op == "MatMul" && g.IsInitializer(n.input(1))) {
      if (!act(n.input(0)) || !weight(n.input(1))) {
        plan.skipped.push_back(label + ": no per-tensor parameters for its input or weight in the table");
        continue;
      }
      nq.inputs = {InputRole::kActivation, InputRole::kWeight};
      nq.why = "matmul";
    } else if (op == "MatMul") {
      if (!attention) {
        plan.skipped.push_back(label + ": both inputs vary and it is not attention's Q·Kᵀ or P·V");
        continue;
      }
      if (!act(n.input(0)) || !act(n.input(1))) {
        plan.skipped.push_back(label + ": attention inputs without per-tensor parameters in the table");
        continue;
      }
      nq.inputs = {InputRole::kActivation, InputRole::kActivation};
      nq.why = qk_outputs.count(n.output(0)) ? "attention scores" : "attention context";
    } else {  // Conv
      if (!act(n.input(0)) || n.input_size() < 2 || !weight(n.input(1))) {
        plan.skipped.push_back(label + ": no parameters for its input or weight in the table");
        continue;
      }
      nq.inputs[0] = InputRole::kActivation;
      nq.inputs[1] = InputRole::kWeight;
      if (n.input_size() > 2 && !n.input(2).empty()) {
        if (!g.IsInitializer(n.input(2))) {
          plan.skipped.push_back(label + ": its bias is not a constant");
          continue;
        }
        // The bias is quantized with one weight scale per output channel: it must be float [M] for a
        // weight [M, C/group, ...] (the runtime would refuse another shape; a table cannot fix it).
        const onnx::TensorProto& bt = g.Initializer(n.input(2));
        const onnx::TensorProto& wt = g.Initializer(n.input(1));
        if (bt.data_type() != onnx::TensorProto::FLOAT || bt.dims_size() != 1 || wt.dims_size() < 1 ||
            bt.dims(0) != wt.dims(0)) {
          plan.skipped.push_back(label + ": its bias is not a float vector with one value per output channel");
          continue;
        }
        nq.inputs[2] = InputRole::kBias;
      }
      nq.why = "conv";
    }
    nq.output = n.output(0);
    if (nq.why == "matmul") nq.bias_add = FindBiasAdd(g, static_cast<int>(i));
    if (nq.bias_add >= 0) nq.output = nodes[static_cast<size_t>(nq.bias_add)].output(0);
    if (nq.why == "matmul" || nq.why == "conv") {
      nq.fused_relu = FindExactRelu(g, nq.output, plan.params);
      if (nq.fused_relu >= 0) nq.output = nodes[static_cast<size_t>(nq.fused_relu)].output(0);
    }
    // Attention scores stay float after the integer product (S2: scaling, mask and Softmax in float).
    nq.quantize_output = nq.why != "attention scores" && act(nq.output);
    plan.nodes[static_cast<int>(i)] = nq;
  }
  return plan;
}

}  // namespace ptq
