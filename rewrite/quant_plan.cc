// MakeQuantPlan: rules per op type, attention roles, overrides and parameter sharing.
#include "rewrite/quant_plan.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "rewrite/bias_correction.h"
#include "rewrite/plan_weights.h"
#include "runtime/attention_pattern.h"
#include "runtime/error.h"
#include "runtime/model_io.h"
#include "runtime/quant_math.h"
#include "runtime/value_movement.h"
#include "runtime/weight_params.h"

namespace ptq {
namespace {

// Parameters of `name` after the config's override, or nullptr when the table has none.
const TensorQuant* Lookup(const std::map<std::string, TensorQuant>& params, const std::string& name) {
  auto it = params.find(name);
  return it == params.end() ? nullptr : &it->second;
}

void ApplyOverrides(const QuantizationOptions& c, std::map<std::string, TensorQuant>* params) {
  for (const auto& [name, o] : c.overrides) {
    TensorQuant& q = (*params)[name];
    if (o.dtype != DataType::kUndefined && o.dtype != q.dtype && !q.scales.empty() && !o.has_range && !o.has_scale) {
      // Same scale and representable range in the other 8-bit type: the zero point moves by 128.
      const int32_t shift = QuantMin(o.dtype) - QuantMin(q.dtype);
      for (int32_t& z : q.zero_points) z += shift;
    }
    if (o.dtype != DataType::kUndefined) q.dtype = o.dtype;
    if (o.has_range) {
      const QuantRange range = QuantRangeOf(q.dtype, c.reduce_range);
      const QuantParams p = ChooseQuantParams(o.min, o.max, range.qmin, range.qmax, c.activation_symmetric);
      q.scales = {p.scale};
      q.zero_points = {p.zero_point};
      q.axis = -1;
    } else if (o.has_scale) {
      const QuantRange range = QuantRangeOf(q.dtype);
      if (o.zero_point < range.qmin || o.zero_point > range.qmax) {
        ThrowUsageError("quantization.overrides.", name, ".zero_point ", o.zero_point, " is outside ",
                        DataTypeName(q.dtype), "'s range [", range.qmin, ", ", range.qmax, "]");
      }
      q.scales = {o.scale};
      q.zero_points = {o.zero_point};
      q.axis = -1;
    } else if (q.scales.empty()) {
      ThrowUsageError("quantization.overrides.", name, ": the table has no parameters for this tensor; give min/max or scale");
    }
  }
}

// Data-movement chains X -> op -> Y (rearranging or selecting ops; not Concat or Split, which have
// several tensors on one side): Y takes X's parameters when X has per-tensor ones (so that the int8
// tensor flows through and QuantizeLinear(DequantizeLinear(.)) pairs cancel); X takes Y's when only Y
// has them and Y is X's only use (the bias Add before a Reshape gets its output's range).
void ShareThroughDataMovement(const RewriteGraph& g, std::map<std::string, TensorQuant>* params) {
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (int i = 0; i < g.size(); ++i) {
      const onnx::NodeProto& n = g.node(i);
      const ValueFlow flow = ValueFlowOf(n.op_type());
      if ((flow != ValueFlow::kRearranges && flow != ValueFlow::kSelects) || n.input_size() < 1 || n.output_size() < 1) {
        continue;
      }
      const std::string& x = n.input(0);
      const std::string& y = n.output(0);
      const TensorQuant* px = Lookup(*params, x);
      const TensorQuant* py = Lookup(*params, y);
      if (px && px->per_tensor() && px->role != TensorRole::kWeight) {
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
  const onnx::NodeProto& mm = g.node(i);
  const std::string& y = mm.output(0);
  const std::vector<int> users = g.Consumers(y);
  if (users.size() != 1 || g.IsGraphOutput(y)) return -1;
  const onnx::NodeProto& add = g.node(users[0]);
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

// The Relu or Clip that is the only reader of `y`, when its output is quantized per tensor so that
// quantizing clamps exactly as it would (Relu: zero point at the type's minimum; Clip(lo, hi): lo and hi
// quantize to the type's ends): the Relu or Clip can go. Not when y or the Relu's output is a graph output: the model output
// must keep its float value, which the folded form no longer computes. -1 otherwise.
int FindExactClamp(const RewriteGraph& g, const std::string& y, const std::map<std::string, TensorQuant>& params) {
  const std::vector<int> users = g.Consumers(y);
  if (users.size() != 1 || g.IsGraphOutput(y)) return -1;
  const onnx::NodeProto& r = g.node(users[0]);
  float lo = -INFINITY, hi = INFINITY;
  if (r.op_type() == "Relu") {
    lo = 0.0f;
  } else if (r.op_type() == "Clip") {  // bounds: constant inputs 1 and 2 (opset 11+) or attributes
    lo = GetFloatAttr(r, "min", lo);
    hi = GetFloatAttr(r, "max", hi);
    for (int k = 1; k <= 2 && k < r.input_size(); ++k) {
      if (r.input(k).empty()) continue;
      if (!g.IsInitializer(r.input(k))) return -1;
      const Tensor b = g.InitializerValue(r.input(k));
      if (b.dtype() != DataType::kFloat || b.size() != 1) return -1;
      (k == 1 ? lo : hi) = b.data<float>()[0];
    }
  } else {
    return -1;
  }
  if (g.IsGraphOutput(r.output(0))) return -1;
  const TensorQuant* q = Lookup(params, r.output(0));
  if (!q || !q->per_tensor() || q->role == TensorRole::kWeight) return -1;
  // Exact when quantizing already clamps at least as tightly: Q(lo) = qmin and Q(hi) = qmax (Q is
  // increasing, so every value below lo or above hi saturates as the clamp would have made it).
  const QuantRange range = QuantRangeOf(q->dtype);
  const float s = q->scales[0];
  const int32_t z = q->zero_points[0];
  const bool low_ok = std::isinf(lo) || QuantizeValue(lo, s, z, range.qmin, range.qmax) == range.qmin;
  const bool high_ok = std::isinf(hi) || QuantizeValue(hi, s, z, range.qmin, range.qmax) == range.qmax;
  return low_ok && high_ok ? users[0] : -1;
}

// Gather from a constant float table of rank 2 (an embedding): int8, symmetric, one scale for the
// table (rows are gathered, so a per-row scale could not follow them), from its min and max.
std::optional<TensorQuant> EmbeddingParams(const RewriteGraph& g, const onnx::NodeProto& n) {
  if (n.input_size() < 2 || !g.IsInitializer(n.input(0)) || GetIntAttr(n, "axis", 0) != 0) return std::nullopt;
  const onnx::TensorProto& t = g.Initializer(n.input(0));
  if (t.data_type() != onnx::TensorProto::FLOAT || t.dims_size() != 2) return std::nullopt;
  const Tensor w = g.InitializerValue(n.input(0));
  for (int64_t i = 0; i < w.size(); ++i) {
    if (!std::isfinite(w.data<float>()[i])) return std::nullopt;
  }
  return ChooseWeightQuant(w, WeightChannelAxis("Gather", false, w.rank()), DataType::kInt8, /*symmetric=*/true);
}

// (tensor, reader) pairs where an integer node of the plan reads the tensor's quantized form.
std::set<std::pair<std::string, int>> IntegerReads(const RewriteGraph& g, const QuantPlan& plan) {
  std::set<std::pair<std::string, int>> reads;
  for (const auto& [i, nq] : plan.nodes) {
    const onnx::NodeProto& n = g.node(i);
    for (size_t k = 0; k < nq.inputs.size() && static_cast<int>(k) < n.input_size(); ++k) {
      if (nq.inputs[k] == InputRole::kActivation) reads.insert({n.input(static_cast<int>(k)), i});
    }
  }
  return reads;
}

// True when every reader of `t` reads its quantized form (an integer read, or a pass-through node)
// and t is no graph output: then no float consumer needs t's float values.
bool OnlyQuantizedReaders(const RewriteGraph& g, const std::string& t, const std::set<std::pair<std::string, int>>& reads,
                          const std::set<int>& passthrough) {
  if (g.IsGraphOutput(t)) return false;
  const std::vector<int> readers = g.Consumers(t);
  if (readers.empty()) return false;
  for (int r : readers) {
    const bool via_input0 = passthrough.count(r) && g.node(r).input(0) == t;
    if (!reads.count({t, r}) && !via_input0) return false;
  }
  return true;
}

// Data-movement nodes (Reshape, Transpose, MaxPool, ...) whose input and output share per-tensor
// parameters and whose output only quantized readers read: they may run on the 8-bit tensor (int8
// data moves from one integer op to the next). The greatest such set: candidates are dropped until
// every remaining one's readers are integer reads or remaining candidates.
std::set<int> Int8Passthrough(const RewriteGraph& g, const std::map<std::string, TensorQuant>& params,
                              const std::set<std::pair<std::string, int>>& reads) {
  std::set<int> pass;
  for (int i = 0; i < g.size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (n.op_type().empty() || !MovesInt8Values(n.op_type()) || n.input_size() < 1 || n.output_size() != 1) continue;
    const TensorQuant* px = Lookup(params, n.input(0));
    const TensorQuant* py = Lookup(params, n.output(0));
    if (!px || !py || !px->per_tensor() || px->role == TensorRole::kWeight || g.IsInitializer(n.input(0)) ||
        px->scales != py->scales || px->zero_points != py->zero_points || px->dtype != py->dtype) {
      continue;
    }
    pass.insert(i);
  }
  // Dropping a node can only change the verdict of the node producing its input: a worklist, linear.
  std::vector<int> work(pass.begin(), pass.end());
  while (!work.empty()) {
    const int r = work.back();
    work.pop_back();
    if (!pass.count(r) || OnlyQuantizedReaders(g, g.node(r).output(0), reads, pass)) continue;
    pass.erase(r);
    const int p = g.Producer(g.node(r).input(0));
    if (p >= 0 && pass.count(p)) work.push_back(p);
  }
  return pass;
}

// QuantPlan::int8_readers and float_readers of every tensor an integer node reads.
void RecordReaders(const RewriteGraph& g, const std::set<std::pair<std::string, int>>& reads, QuantPlan* plan) {
  std::set<std::string> tensors;
  for (const auto& tr : reads) tensors.insert(tr.first);
  for (int p : plan->int8_passthrough) tensors.insert(g.node(p).input(0));
  for (const std::string& t : tensors) {
    auto& int8 = plan->int8_readers[t];
    auto& fl = plan->float_readers[t];
    for (int r : g.Consumers(t)) {
      const bool passes = plan->int8_passthrough.count(r) && g.node(r).input(0) == t;
      auto& list = reads.count({t, r}) || passes ? int8 : fl;
      if (std::find(list.begin(), list.end(), g.node(r).name()) == list.end()) list.push_back(g.node(r).name());
    }
    if (g.IsGraphOutput(t)) fl.push_back("(model output)");
  }
}

// Why `t` cannot be quantized as an activation (per tensor), in words for the "stays float" note.
std::string WhyNoActivationParams(const std::map<std::string, TensorQuant>& params, const std::string& t) {
  const TensorQuant* q = Lookup(params, t);
  if (!q) return "its input '" + t + "' is not in the calibration table (not observed by calibration with this config)";
  if (q->role == TensorRole::kWeight) return "its input '" + t + "' is a weight in the calibration table";
  return "its input '" + t + "' has " + std::to_string(q->scales.size()) + " scales in the table; an activation needs one";
}

// Sets nq->bias_shift for node n (bias correction), or returns why it cannot be corrected. The means
// in the table were measured with the table's parameters of the input: they must be the ones used.
std::string BiasCorrection(const RewriteGraph& g, const onnx::NodeProto& n, const QuantTable& table,
                           const std::map<std::string, TensorQuant>& params, const std::string& bias, NodeQuant* nq) {
  const TensorQuant* measured = Lookup(table.tensors, n.input(0));
  const TensorQuant& used = params.at(n.input(0));
  if (!measured || measured->float_mean.empty()) {
    return "the calibration table has no channel means of its input '" + n.input(0) + "' (a shard's table, or a table made "
           "without quantization.bias_correction)";
  }
  if (measured->scales != used.scales || measured->zero_points != used.zero_points || measured->dtype != used.dtype) {
    return "its input '" + n.input(0) + "' is quantized with other parameters than those its channel means were measured with";
  }
  if (bias.empty() && n.op_type() != "Conv") return "it has no bias to correct";
  nq->bias_shift = BiasShift(g, n, *measured, nq->weight);
  if (nq->bias_shift.empty()) {
    return "its weight is not a 2-D MatMul weight or a Conv kernel matching its input's channel means (axis " +
           std::to_string(measured->mean_axis) + ", " + std::to_string(measured->float_mean.size()) + " channels)";
  }
  return "";
}

}  // namespace

QuantPlan MakeQuantPlan(const RewriteGraph& g, const onnx::ModelProto& model, const QuantTable& table,
                        const QuantizationOptions& config) {
  QuantPlan plan;
  plan.params = table.tensors;
  ApplyOverrides(config, &plan.params);
  ShareThroughDataMovement(g, &plan.params);

  // Attention roles, by the output names of the MatMuls.
  std::set<std::string> qk_outputs, pv_outputs;
  if (config.attention) {
    // FindAttention asks only which tensors are constant: the graph without its initializers' data.
    Graph rg = GraphFromModel(CopyWithoutInitializers(model), g.model_dir(), "model");
    for (const std::string& name : g.InitializerNames()) rg.constants.emplace(name, Tensor());
    for (const AttentionMatch& m : FindAttention(rg)) {
      if (m.qk_matmul) qk_outputs.insert(m.qk_matmul->outputs[0]);
      if (m.pv_matmul) pv_outputs.insert(m.pv_matmul->outputs[0]);
    }
  }
  auto act = [&](const std::string& t) {
    const TensorQuant* q = Lookup(plan.params, t);
    return q && q->role != TensorRole::kWeight && q->per_tensor();
  };
  auto weight = [&](const std::string& t) {
    return g.IsInitializer(t) && g.Initializer(t).data_type() == onnx::TensorProto::FLOAT;
  };
  for (int i = 0; i < g.size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    const std::string& op = n.op_type();
    if (op == "Gather" && config.quantizes("Gather")) {
      if (auto q = EmbeddingParams(g, n)) {
        if (IsExcluded(config, n.name())) continue;
        NodeQuant nq;
        nq.inputs = {InputRole::kWeight, InputRole::kFloat};
        nq.weight = *q;
        nq.output = n.output(0);
        nq.why = "embedding";
        plan.nodes[i] = nq;
      }
      continue;
    }
    if (op != "MatMul" && op != "Conv") continue;
    const std::string label = "node '" + n.name() + "' (" + op + ", output '" + n.output(0) + "')";
    const bool attention = qk_outputs.count(n.output(0)) || pv_outputs.count(n.output(0));
    if (!config.quantizes(op) && !(attention && op == "MatMul")) continue;
    if (IsExcluded(config, n.name())) {
      plan.skipped.push_back(label + ": excluded by quantization.exclude_nodes");
      continue;
    }
    NodeQuant nq;
    nq.inputs.assign(static_cast<size_t>(n.input_size()), InputRole::kFloat);
    if (op == "MatMul" && g.IsInitializer(n.input(1))) {
      if (!weight(n.input(1))) {
        plan.skipped.push_back(label + ": its constant weight '" + n.input(1) + "' is not float32");
        continue;
      }
      if (!act(n.input(0))) {
        plan.skipped.push_back(label + ": " + WhyNoActivationParams(plan.params, n.input(0)));
        continue;
      }
      nq.inputs = {InputRole::kActivation, InputRole::kWeight};
      nq.why = "matmul";
    } else if (op == "MatMul") {
      if (!attention) {
        plan.skipped.push_back(label + ": neither input is a constant weight (both are computed at run time) and it is "
                                       "not attention's Q·Kᵀ or P·V");
        continue;
      }
      if (!act(n.input(0)) || !act(n.input(1))) {
        plan.skipped.push_back(label + " (attention): " + WhyNoActivationParams(plan.params, act(n.input(0)) ? n.input(1) : n.input(0)));
        continue;
      }
      nq.inputs = {InputRole::kActivation, InputRole::kActivation};
      nq.why = qk_outputs.count(n.output(0)) ? "attention scores" : "attention context";
    } else {  // Conv
      if (n.input_size() < 2 || !weight(n.input(1))) {
        plan.skipped.push_back(label + ": its weight is not a float32 constant");
        continue;
      }
      if (!act(n.input(0))) {
        plan.skipped.push_back(label + ": " + WhyNoActivationParams(plan.params, n.input(0)));
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
    if (nq.inputs[1] == InputRole::kWeight) {
      nq.weight = WeightQuantFor(g, n.input(1), op, Lookup(plan.params, n.input(1)), config);
    }
    nq.output = n.output(0);
    if (nq.why == "matmul") nq.bias_add = FindBiasAdd(g, i);
    if (nq.bias_add >= 0) nq.output = g.node(nq.bias_add).output(0);
    std::string bias;
    if (nq.bias_add >= 0) {
      const onnx::NodeProto& add = g.node(nq.bias_add);
      bias = add.input(0) == n.output(0) ? add.input(1) : add.input(0);
    } else if (nq.inputs.size() > 2 && nq.inputs[2] == InputRole::kBias) {
      bias = n.input(2);
    }
    if (!bias.empty()) {
      const std::string w = FitBiasInInt32(g, bias, plan.params.at(n.input(0)).scales[0], n.name(), n.input(1), &nq.weight);
      if (!w.empty()) plan.warnings.push_back(w);
    }
    if (config.bias_correction && nq.inputs[1] == InputRole::kWeight) {
      const std::string why = BiasCorrection(g, n, table, plan.params, bias, &nq);
      if (why.empty()) plan.bias_corrected.push_back(n.name().empty() ? "(output '" + n.output(0) + "')" : n.name());
      else plan.bias_not_corrected.push_back(label + ": " + why);
    }
    plan.nodes[i] = nq;
  }
  // Which readers read a quantized tensor: the integer nodes, and data-movement nodes between them.
  const std::set<std::pair<std::string, int>> integer_reads = IntegerReads(g, plan);
  plan.int8_passthrough = Int8Passthrough(g, plan.params, integer_reads);
  auto reads_quantized = [&](const std::string& t) { return OnlyQuantizedReaders(g, t, integer_reads, plan.int8_passthrough); };
  for (auto& [i, nq] : plan.nodes) {
    if (nq.why == "matmul" || nq.why == "conv") {
      nq.fused_clamp = FindExactClamp(g, nq.output, plan.params);
      // The Relu or Clip folds only when nobody needs its float output (quantize edges, not tensors).
      if (nq.fused_clamp >= 0 && !reads_quantized(g.node(nq.fused_clamp).output(0))) nq.fused_clamp = -1;
      if (nq.fused_clamp >= 0) nq.output = g.node(nq.fused_clamp).output(0);
    }
    // Attention scores stay float after the integer product (S2: scaling, mask and Softmax in float).
    nq.quantize_output = nq.why != "attention scores" && nq.why != "embedding" && act(nq.output);
    if (nq.quantize_output) plan.output_of[nq.output] = g.node(i).name();
  }
  RecordReaders(g, integer_reads, &plan);
  return plan;
}

}  // namespace ptq
