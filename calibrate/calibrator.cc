// Tensor selection, the observer-driven statistics pass, and the choice of scales and zero points.
#include "calibrate/calibrator.h"

#include <algorithm>
#include <functional>
#include <memory>
#include <set>

#include "calibrate/range_method.h"
#include "calibrate/stats_worker.h"
#include "calibrate/tensor_aliases.h"
#include "runtime/attention_pattern.h"
#include "runtime/error.h"
#include "runtime/quant_math.h"
#include "runtime/session.h"
#include "runtime/value_movement.h"
#include "runtime/weight_params.h"

namespace ptq {

std::map<std::string, TensorRole> SelectTensors(const Graph& graph, const CalibrationOptions& options) {
  std::map<std::string, TensorRole> selected;
  auto add_activation = [&](const std::string& t) {
    if (!t.empty() && !graph.constants.count(t) && !selected.count(t)) selected[t] = TensorRole::kActivation;
  };
  for (const Node& n : graph.nodes) {
    const QuantOpRule* rule = n.domain.empty() && options.quant.quantizes(n.op_type) ? QuantRuleFor(n.op_type) : nullptr;
    if (!rule) continue;
    // The weight input when it is a float constant (a Gather's indices never are a weight); the
    // activation inputs when they vary.
    const size_t wi = static_cast<size_t>(rule->weight_input);
    if (wi < n.inputs.size()) {
      const auto c = graph.constants.find(n.inputs[wi]);
      if (c != graph.constants.end() && c->second.dtype() == DataType::kFloat) selected[n.inputs[wi]] = TensorRole::kWeight;
    }
    for (int i : rule->activation_inputs) {
      if (static_cast<size_t>(i) < n.inputs.size()) add_activation(n.inputs[static_cast<size_t>(i)]);
    }
    if (!n.outputs.empty()) add_activation(n.outputs[0]);
  }
  if (options.quant.attention) {
    for (const AttentionMatch& m : FindAttention(graph)) {
      selected[m.softmax->outputs[0]] = TensorRole::kSoftmaxOutput;
      for (const Node* mm : {m.qk_matmul, m.pv_matmul}) {
        if (!mm) continue;
        for (const std::string& in : mm->inputs) {
          if (!selected.count(in)) add_activation(in);
        }
        add_activation(mm->outputs[0]);
      }
    }
  }
  return selected;
}

void MergeObservedShape(Shape* shape, const Shape& seen) {
  if (shape->size() != seen.size()) {
    if (shape->empty()) *shape = seen;
    return;
  }
  for (size_t i = 0; i < seen.size(); ++i) (*shape)[i] = std::max((*shape)[i], seen[i]);
}

CalibrationResult CollectStatistics(const Graph& graph, SampleSource& samples, const CalibrationOptions& options,
                                    const std::function<void(int64_t, int64_t)>& progress,
                                    const CollectOptions& collect) {
  CalibrationResult result;
  const auto selected = SelectTensors(graph, options);
  for (const auto& kv : selected) {
    CalibratedTensor& t = result.tensors[kv.first];
    t.role = kv.second;
    if (t.role == TensorRole::kWeight) {
      const Tensor& w = graph.constants.at(kv.first);
      if (w.dtype() == DataType::kFloat) t.histogram.Add(w.data<float>(), static_cast<size_t>(w.size()));
      t.shape = w.shape();
    }
  }
  // Tensors that are a rearrangement of another observed tensor: only their shape is recorded during
  // the run, their histogram is copied from their source's at the end (tensor_aliases.h).
  std::set<std::string> observed;
  for (const auto& kv : result.tensors) {
    if (kv.second.role != TensorRole::kWeight) observed.insert(kv.first);
  }
  const std::map<std::string, std::string> aliases = FindValueAliases(graph, observed);
  std::set<const CalibratedTensor*> alias_targets;
  for (const auto& kv : aliases) alias_targets.insert(&result.tensors.at(kv.first));
  // The session runs `graph` itself (not owned: it outlives the session), not a copy of its constants.
  std::shared_ptr<const Graph> shared(std::shared_ptr<const Graph>(), &graph);
  Session session(shared, SessionOptions::ObservingEveryTensor());
  // The observed activations of each node of `shared` (by index), as (output name, target): most
  // nodes have none, so the observer returns after one index; graph inputs use the map.
  std::vector<std::vector<std::pair<const std::string*, CalibratedTensor*>>> per_node(shared->nodes.size());
  for (size_t i = 0; i < shared->nodes.size(); ++i) {
    for (const std::string& out : shared->nodes[i].outputs) {
      auto it = result.tensors.find(out);
      if (it != result.tensors.end() && it->second.role != TensorRole::kWeight) per_node[i].push_back({&out, &it->second});
    }
  }
  auto target_of = [&](const Observation& o) -> CalibratedTensor* {
    const Node* first = shared->nodes.data();
    if (o.node && o.node >= first && o.node < first + shared->nodes.size()) {
      for (const auto& e : per_node[static_cast<size_t>(o.node - first)]) {
        if (e.first == &o.name || *e.first == o.name) return e.second;
      }
      return nullptr;
    }
    auto it = result.tensors.find(o.name);
    return it == result.tensors.end() || it->second.role == TensorRole::kWeight ? nullptr : &it->second;
  };
  std::unique_ptr<StatsWorker> worker;  // declared after `result`: joined before the targets go away
  if (collect.background) worker = std::make_unique<StatsWorker>(FoldObservation, collect.queue_bytes);
  // Every tensor's observed shape: node outputs by (node, output slot), graph inputs by name.
  std::vector<std::vector<ObservedTensor>> node_shapes(shared->nodes.size());
  std::vector<std::vector<bool>> node_seen(shared->nodes.size());
  for (size_t i = 0; i < shared->nodes.size(); ++i) {
    node_shapes[i].resize(shared->nodes[i].outputs.size());
    node_seen[i].assign(shared->nodes[i].outputs.size(), false);
  }
  auto record_shape = [&](const Observation& o) {
    const Node* first = shared->nodes.data();
    if (o.node && o.node >= first && o.node < first + shared->nodes.size()) {
      const size_t i = static_cast<size_t>(o.node - first);
      for (size_t k = 0; k < o.node->outputs.size(); ++k) {
        if (&o.node->outputs[k] != &o.name && o.node->outputs[k] != o.name) continue;
        if (!node_seen[i][k]) node_shapes[i][k] = {o.value.dtype(), o.value.shape()};
        else MergeObservedShape(&node_shapes[i][k].shape, o.value.shape());
        node_seen[i][k] = true;
        return;
      }
    }
    auto [it, fresh] = result.observed.emplace(o.name, ObservedTensor{o.value.dtype(), o.value.shape()});
    if (!fresh) MergeObservedShape(&it->second.shape, o.value.shape());
  };
  Observer observer = [&](const Observation& o) {
    record_shape(o);
    if (o.value.dtype() != DataType::kFloat) return;
    CalibratedTensor* t = target_of(o);
    if (!t) return;
    if (alias_targets.count(t)) {
      MergeObservedShape(&t->shape, o.value.shape());  // the worker never touches an alias
    } else if (worker) {
      worker->Push(t, o.value);  // copies the values into a recycled buffer (see stats_worker.h)
    } else {
      FoldObservation(t, o.value);
    }
  };
  std::map<std::string, Tensor> batch;
  int64_t n = 0;
  while (samples.Next(&batch, &n)) {
    session.Run(batch, observer);
    if (worker) worker->Publish();  // hands the batch's tensors over at once
    result.samples += n;
    if (progress) progress(result.samples, samples.num_samples());
  }
  if (worker) worker->Finish();
  for (size_t i = 0; i < node_shapes.size(); ++i) {
    for (size_t k = 0; k < node_shapes[i].size(); ++k) {
      if (node_seen[i][k] && !shared->nodes[i].outputs[k].empty()) result.observed[shared->nodes[i].outputs[k]] = node_shapes[i][k];
    }
  }
  for (const auto& kv : aliases) result.tensors.at(kv.first).histogram = result.tensors.at(kv.second).histogram;
  return result;
}

namespace {

// The channel axis of a weight: that of its first quantized consumer (WeightChannelAxis). A consumer
// that needs another axis gets its own parameters from the rewrite (quant_plan.cc).
int64_t ChannelAxis(const Graph& graph, const std::string& weight, const CalibrationOptions& o) {
  for (const Node& n : graph.nodes) {
    const QuantOpRule* rule = n.domain.empty() && o.quant.quantizes(n.op_type) ? QuantRuleFor(n.op_type) : nullptr;
    if (!rule || static_cast<size_t>(rule->weight_input) >= n.inputs.size() ||
        n.inputs[static_cast<size_t>(rule->weight_input)] != weight) {
      continue;
    }
    return WeightChannelAxis(n.op_type, n.attrs.GetInt("transB", 0) != 0, graph.constants.at(weight).rank());
  }
  return -1;
}

void ChooseWeight(const Graph& graph, const std::string& name, const CalibrationOptions& o, CalibratedTensor* t) {
  const Tensor& w = graph.constants.at(name);
  const int64_t axis = o.quant.per_channel ? ChannelAxis(graph, name, o) : -1;
  static_cast<TensorQuant&>(*t) =
      ChooseWeightQuant(w, axis, o.quant.weight_dtype, o.quant.weight_symmetric, &t->range_min, &t->range_max);
}

// Producers of every tensor, by name.
std::map<std::string, const Node*> Producers(const Graph& graph) {
  std::map<std::string, const Node*> p;
  for (const Node& n : graph.nodes) {
    for (const std::string& o : n.outputs) p[o] = &n;
  }
  return p;
}

// True when `tensor` is a pooled summary: written by GlobalAveragePool, GlobalMaxPool, ReduceMean or
// ReduceMax, possibly through ops that only rearrange values (Flatten, Reshape, Squeeze, ...).
bool PooledSummary(const std::map<std::string, const Node*>& producers, const std::string& tensor) {
  std::string t = tensor;
  for (int hops = 0; hops < 16; ++hops) {
    const auto p = producers.find(t);
    if (p == producers.end() || !p->second->domain.empty()) return false;
    const std::string& op = p->second->op_type;
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool" || op == "ReduceMean" || op == "ReduceMax") return true;
    if (!RearrangesValues(op) || p->second->inputs.empty()) return false;
    t = p->second->inputs[0];
  }
  return false;
}

}  // namespace

void ChooseQuantization(const Graph& graph, const CalibrationOptions& o, CalibrationResult* result) {
  const std::unique_ptr<RangeMethod> method = MakeRangeMethod(o.method);
  RangeOptions ro;
  const QuantRange range = o.quant.activation_range();
  ro.symmetric = o.quant.activation_symmetric;
  ro.percentile = o.percentile;
  ro.levels = range.levels();
  const std::unique_ptr<RangeMethod> minmax = MakeRangeMethod("minmax");
  const auto producers = Producers(graph);
  for (auto& kv : result->tensors) {
    CalibratedTensor& t = kv.second;
    if (t.role == TensorRole::kWeight) {
      const auto w = graph.constants.find(kv.first);
      if (w == graph.constants.end() || w->second.dtype() != DataType::kFloat) {
        ThrowInputError("the calibration table names weight '", kv.first, "', which is not a float constant of ",
                        graph.source, ": the table was made for another model");
      }
      ChooseWeight(graph, kv.first, o, &t);
      continue;
    }
    if (t.role == TensorRole::kSoftmaxOutput) {
      // Softmax outputs lie in [0, 1]: uint8 with zero point 0. calibrated: scale = observed max / 255
      // (the softmax output scale, computed offline); fixed: 1/256 as ONNX Runtime does.
      t.dtype = DataType::kUint8;
      t.range_min = 0.0f;
      t.range_max = t.histogram.empty() ? 1.0f : std::min(1.0f, std::max(t.histogram.max(), 0.0f));
      const float scale = o.softmax_calibrated ? ChooseQuantParams(0.0f, t.range_max, DataType::kUint8, false).scale
                                               : 1.0f / 256.0f;
      t.scales = {scale};
      t.zero_points = {0};
      continue;
    }
    t.dtype = o.quant.activation_dtype;
    // A pooled summary (one average or maximum per channel) has no outliers to trade for resolution: its
    // extremes are the strongest channels' responses (a squeeze-excitation gate's input, a classifier's
    // features), which clipping would flatten (README "Methods beyond the baseline" has the measurements).
    const RangeMethod& m = PooledSummary(producers, kv.first) ? *minmax : *method;
    const Range r = t.histogram.empty() ? Range{0.0f, 0.0f} : m.Choose(t.histogram, ro);
    t.range_min = r.min;
    t.range_max = r.max;
    const QuantParams p = ChooseQuantParams(r.min, r.max, range.qmin, range.qmax, o.quant.activation_symmetric);
    t.scales = {p.scale};
    t.zero_points = {p.zero_point};
  }
}

}  // namespace ptq
