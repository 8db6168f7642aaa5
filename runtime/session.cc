// Graph checks, topological ordering, kernel creation and execution with last-use freeing (and reuse); subgraphs
// run through the same machinery, their captures filled like inputs.
#include "runtime/session.h"

#include <algorithm>
#include <set>

#include "runtime/cpu_features.h"
#include "runtime/graph_index.h"
#include "runtime/mapped_file.h"
#include "runtime/memory_usage.h"
#include "runtime/op_registry.h"

namespace ptq {

struct Session::Step {
  const Node* node;
  std::unique_ptr<Kernel> kernel;
  std::vector<int> input_slots;     // -1 for omitted inputs
  std::vector<int> implicit_slots;  // Node::implicit_inputs
  std::vector<int> output_slots;    // -1 for omitted outputs
  std::vector<int> free_after;      // slots whose last reader is this step
  std::vector<char> last_read;      // per input: its slot is in free_after and read through no other input
};

namespace {

// Adds the unsupported ops of `graph` and its subgraphs to `out`; nodes of subgraphs are named by
// their path ("loop/body/add").
void CollectUnsupportedOps(const Graph& graph, const std::string& prefix, std::vector<UnsupportedOp>* out) {
  const OpRegistry& reg = OpRegistry::Global();
  for (const Node& n : graph.nodes) {
    for (const auto& kv : n.attrs.all()) {
      if (kv.second.graph) CollectUnsupportedOps(*kv.second.graph, prefix + n.name + "/" + kv.first + "/", out);
    }
    const auto it = graph.opsets.find(n.domain);
    const int opset = it == graph.opsets.end() ? 0 : it->second;
    if (reg.Find(n.domain, n.op_type, opset)) continue;
    auto found = std::find_if(out->begin(), out->end(), [&](const UnsupportedOp& u) {
      return u.op_type == n.op_type && u.domain == n.domain;
    });
    if (found == out->end()) {
      out->push_back({n.domain, n.op_type, opset, {}});
      found = out->end() - 1;
    }
    found->nodes.push_back(prefix + n.name);
  }
}

std::string DescribeUnsupported(const Graph& g, const std::vector<UnsupportedOp>& ops) {
  std::string msg = g.source + ": unsupported ops (" + std::to_string(ops.size()) + "):";
  for (const UnsupportedOp& u : ops) {
    msg += " " + (u.domain.empty() ? std::string() : u.domain + ".") + u.op_type + " (opset " + std::to_string(u.opset) +
           ", nodes: ";
    const size_t shown = std::min<size_t>(u.nodes.size(), 5);
    for (size_t i = 0; i < shown; ++i) msg += (i ? ", " : "") + u.nodes[i];
    if (u.nodes.size() > shown) msg += ", ... " + std::to_string(u.nodes.size() - shown) + " more";
    msg += ");";
  }
  msg.pop_back();
  return msg;
}

void CheckFeed(const ValueInfo& info, const Tensor& t, const std::string& source) {
  if (info.dtype != DataType::kUndefined && info.dtype != t.dtype()) {
    ThrowDataError(source, ": input '", info.name, "' expects ", DataTypeName(info.dtype), ", got ",
                    DataTypeName(t.dtype()));
  }
  if (!info.has_shape) return;
  bool ok = info.shape.size() == t.shape().size();
  for (size_t i = 0; ok && i < info.shape.size(); ++i) {
    ok = info.shape[i].value < 0 || info.shape[i].value == t.shape()[i];
  }
  if (!ok) {
    ThrowDataError(source, ": input '", info.name, "' expects shape ", DeclaredShapeString(info), ", got ",
                   ShapeToString(t.shape()));
  }
}

}  // namespace

std::vector<UnsupportedOp> FindUnsupportedOps(const Graph& graph) {
  std::vector<UnsupportedOp> out;
  CollectUnsupportedOps(graph, "", &out);
  return out;
}

namespace {
bool default_literal_qdq = false;
}  // namespace

bool SessionOptions::DefaultLiteralQdq() { return default_literal_qdq; }
void SessionOptions::SetDefaultLiteralQdq(bool literal) { default_literal_qdq = literal; }

Session::Session(std::shared_ptr<const Graph> graph, const SessionOptions& options) : graph_(std::move(graph)) {
  const bool quantized = std::any_of(graph_->nodes.begin(), graph_->nodes.end(), [](const Node& n) {
    return n.op_type == "DequantizeLinear" || n.op_type == "QuantizeLinear";
  });
  if (!options.literal_qdq && quantized && graph_->captures.empty()) {
    Graph fused = FuseQdqGroups(*graph_, &fused_);
    if (fused_.total() > 0) graph_ = std::make_shared<const Graph>(std::move(fused));
  }
  if (options.fuse_float_patterns && graph_->captures.empty()) {
    Graph fused = FuseFloatPatterns(*graph_, &fused_float_);
    if (fused_float_.total() > 0) graph_ = std::make_shared<const Graph>(std::move(fused));
  }
  if (!options.literal_qdq && quantized && graph_->captures.empty()) {
    Graph fused = FuseBinaryOutputGroups(*graph_, &fused_);
    if (fused_.binary_outputs > 0) graph_ = std::make_shared<const Graph>(std::move(fused));
  }
  if (options.channels_last && graph_->captures.empty()) {
    Graph converted = ToChannelsLast(*graph_, &channels_last_);
    if (channels_last_.convs > 0) graph_ = std::make_shared<const Graph>(std::move(converted));
    if (channels_last_.convs > 0 && options.fuse_float_patterns && GetCpuFeatures().avx2_fma) {
      Graph fused = FusePointwiseDepthwise(*graph_, &channels_last_);
      if (channels_last_.pointwise_depthwise > 0) graph_ = std::make_shared<const Graph>(std::move(fused));
    }
  }
  if (!options.literal_qdq && quantized && graph_->captures.empty()) {
    Graph fused = FuseConvOutputGroups(*graph_, &fused_);
    if (fused_.conv_outputs > 0) graph_ = std::make_shared<const Graph>(std::move(fused));
  }
  const Graph& g = *graph_;
  for (const auto* list : {&g.inputs, &g.outputs}) {
    for (const ValueInfo& v : *list) {
      if (!v.is_tensor) ThrowInputError(g.source, ": '", v.name, "' is a sequence, optional or map value; ptq runs tensors only");
    }
  }
  const std::vector<UnsupportedOp> unsupported = FindUnsupportedOps(g);
  if (!unsupported.empty()) ThrowInputError(DescribeUnsupported(g, unsupported));

  auto new_slot = [&](const std::string& name) {
    slot_of_[name] = num_slots_;
    return num_slots_++;
  };
  for (const ValueInfo& in : g.inputs) input_slots_.push_back(new_slot(in.name));
  for (const std::string& c : g.captures) capture_slots_.push_back(new_slot(c));
  for (const auto& kv : g.constants) constant_slots_.push_back({new_slot(kv.first), &kv.second});
  for (size_t i = 0; i < g.nodes.size(); ++i) {
    for (const std::string& o : g.nodes[i].outputs) {
      if (o.empty()) continue;
      if (slot_of_.count(o)) {
        ThrowInputError(g.source, ": tensor '", o, "' is produced by node '", g.nodes[i].name,
                        "' but is also a graph input or constant");
      }
      new_slot(o);
    }
  }
  // Every input produced somewhere, then the nodes in dependency order (stable in file order).
  for (const Node& n : g.nodes) {
    auto check = [&](const std::string& in, const char* how) {
      if (!in.empty() && !slot_of_.count(in)) {
        ThrowInputError(g.source, ": node '", n.name, "' (", n.op_type, ") reads tensor '", in, "'", how,
                        ", which no node produces and which is not a graph input or initializer");
      }
    };
    for (const std::string& in : n.inputs) check(in, "");
    for (const std::string& in : n.implicit_inputs) check(in, " in a subgraph");
  }
  const std::vector<size_t> order = GraphIndex(g).TopologicalOrder();
  if (order.size() != g.nodes.size()) {
    std::vector<bool> placed(g.nodes.size(), false);
    for (size_t i : order) placed[i] = true;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (!placed[i]) {
        ThrowInputError(g.source, ": the graph has a cycle through node '", g.nodes[i].name, "' (", g.nodes[i].op_type,
                        ")");
      }
    }
  }
  for (const ValueInfo& out : g.outputs) {
    auto it = slot_of_.find(out.name);
    if (it == slot_of_.end()) ThrowInputError(g.source, ": graph output '", out.name, "' is never produced");
    output_slots_.push_back(it->second);
  }

  // Create kernels and find each slot's last reader.
  std::vector<int> last_reader(static_cast<size_t>(num_slots_), -1);
  const OpRegistry& reg = OpRegistry::Global();
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const Node& n = g.nodes[order[pos]];
    Step step;
    step.node = &n;
    KernelInit init;
    init.prepack_float_weights = options.prepack_float_weights;
    init.node_name = n.name;
    init.op_type = n.op_type;
    init.opset = g.OpsetFor(n.domain);
    init.attrs = &n.attrs;
    init.num_inputs = static_cast<int>(n.inputs.size());
    init.num_outputs = static_cast<int>(n.outputs.size());
    for (const std::string& in : n.inputs) {
      const int slot = in.empty() ? -1 : slot_of_.at(in);
      step.input_slots.push_back(slot);
      auto c = in.empty() ? g.constants.end() : g.constants.find(in);
      init.const_inputs.push_back(c == g.constants.end() ? nullptr : &c->second);
      if (slot >= 0) last_reader[static_cast<size_t>(slot)] = static_cast<int>(pos);
    }
    init.implicit_inputs = n.implicit_inputs;
    for (const std::string& in : n.implicit_inputs) {
      const int slot = slot_of_.at(in);
      step.implicit_slots.push_back(slot);
      last_reader[static_cast<size_t>(slot)] = static_cast<int>(pos);
    }
    for (const std::string& o : n.outputs) step.output_slots.push_back(o.empty() ? -1 : slot_of_.at(o));
    const KernelDef* def = reg.Find(n.domain, n.op_type, init.opset);
    try {
      step.kernel = def->factory(init);
    } catch (const Error& e) {
      throw Error(e.kind(), StrCat(g.source, ": node '", n.name, "' (", n.op_type, "): ", e.what()));
    }
    // A kernel that packs a constant (int8 weights, prepacked float weights) has read it once, here, and no
    // longer needs it: the resident pages of mapped constants go back to the page cache at once. A kernel
    // that reads a constant in place faults its pages back in from the page cache on its first run.
    for (const Tensor* c : init.const_inputs) {
      if (c) DropResidentPages(c->buffer());
    }
    steps_.push_back(std::move(step));
  }
  std::vector<bool> keep(static_cast<size_t>(num_slots_), false);
  for (int s : output_slots_) keep[static_cast<size_t>(s)] = true;
  for (const auto& c : constant_slots_) keep[static_cast<size_t>(c.first)] = true;
  for (int s = 0; s < num_slots_; ++s) {
    const int r = last_reader[static_cast<size_t>(s)];
    if (r >= 0 && !keep[static_cast<size_t>(s)]) steps_[static_cast<size_t>(r)].free_after.push_back(s);
  }
  for (Step& step : steps_) {
    step.last_read.assign(step.input_slots.size(), 0);
    for (size_t i = 0; i < step.input_slots.size(); ++i) {
      const int s = step.input_slots[i];
      if (s < 0 || std::count(step.input_slots.begin(), step.input_slots.end(), s) != 1 ||
          std::count(step.implicit_slots.begin(), step.implicit_slots.end(), s) != 0) {
        continue;
      }
      step.last_read[i] = std::find(step.free_after.begin(), step.free_after.end(), s) != step.free_after.end();
    }
  }
}

Session::~Session() = default;

std::vector<Tensor> Session::Run(const std::map<std::string, Tensor>& feeds, const Observer& observer) {
  const Graph& g = *graph_;
  for (const auto& kv : feeds) {
    if (!slot_of_.count(kv.first) || g.constants.count(kv.first)) {
      std::string names;
      for (const ValueInfo& in : g.inputs) names += (names.empty() ? "" : ", ") + in.name;
      ThrowDataError(g.source, ": '", kv.first, "' is not an input of the model (inputs: ", names, ")");
    }
  }
  std::vector<Tensor> slots(static_cast<size_t>(num_slots_));
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const ValueInfo& info = g.inputs[i];
    auto it = feeds.find(info.name);
    if (it == feeds.end()) ThrowDataError(g.source, ": no value given for input '", info.name, "'");
    CheckFeed(info, it->second, g.source);
    slots[static_cast<size_t>(input_slots_[i])] = it->second;
    if (observer) observer({nullptr, info.name, it->second});
  }
  return Execute(slots, observer);
}

std::vector<Tensor> Session::RunSubgraph(const std::vector<const Tensor*>& inputs,
                                         const std::vector<const Tensor*>& captures) {
  const Graph& g = *graph_;
  if (inputs.size() != g.inputs.size() || captures.size() != g.captures.size()) {
    throw Error(ErrorKind::kInternal, StrCat(g.source, ": RunSubgraph given ", inputs.size(), " inputs and ",
                                             captures.size(), " captures for ", g.inputs.size(), " and ",
                                             g.captures.size()));
  }
  std::vector<Tensor> slots(static_cast<size_t>(num_slots_));
  for (size_t i = 0; i < inputs.size(); ++i) {
    const ValueInfo& info = g.inputs[i];
    if (info.dtype != DataType::kUndefined && info.dtype != inputs[i]->dtype()) {
      ThrowInputError(g.source, ": input '", info.name, "' expects ", DataTypeName(info.dtype), ", got ",
                      DataTypeName(inputs[i]->dtype()));
    }
    slots[static_cast<size_t>(input_slots_[i])] = *inputs[i];
  }
  for (size_t i = 0; i < captures.size(); ++i) slots[static_cast<size_t>(capture_slots_[i])] = *captures[i];
  return Execute(slots, nullptr);
}

std::vector<Tensor> Session::Execute(std::vector<Tensor>& slots, const Observer& observer) {
  const Graph& g = *graph_;
  for (const auto& c : constant_slots_) slots[static_cast<size_t>(c.first)] = *c.second;
  KernelContext ctx;
  reused_buffers_ = 0;
  for (Step& step : steps_) {
    const Node& n = *step.node;
    ctx.inputs.clear();
    for (int s : step.input_slots) ctx.inputs.push_back(s < 0 ? nullptr : &slots[static_cast<size_t>(s)]);
    ctx.implicit_inputs.clear();
    for (int s : step.implicit_slots) ctx.implicit_inputs.push_back(&slots[static_cast<size_t>(s)]);
    ctx.outputs.assign(step.output_slots.size(), Tensor());
    // An input whose last reader this is, and whose buffer no other slot, feed or caller holds, may take the output
    // (KernelContext::reusable): its lines are in the cache of the core that wrote them, where a buffer from the pool
    // may have been written last by another core (EfficientNet-B0's SE Muls at batch 8 ran 3-6x slower on two threads
    // than on one with the cores on two L3 caches). Not while an observer is watching every tensor.
    ctx.reusable.assign(step.input_slots.size(), 0);
    for (size_t i = 0; i < step.input_slots.size(); ++i) {
      ctx.reusable[i] = step.last_read[i] && !observer &&
                        slots[static_cast<size_t>(step.input_slots[i])].buffer().use_count() == 1;
    }
    try {
      step.kernel->Run(ctx);
    } catch (const Error& e) {
      throw Error(e.kind(), StrCat(g.source, ": node '", n.name, "' (", n.op_type, "): ", e.what()));
    } catch (const std::bad_alloc&) {
      ThrowOutOfMemory(StrCat("running ", g.source, ": node '", n.name, "' (", n.op_type, ")"));
    }
    for (size_t i = 0; i < ctx.reusable.size(); ++i) {
      if (!ctx.reusable[i]) continue;
      for (const Tensor& out : ctx.outputs) reused_buffers_ += out.raw() != nullptr && out.raw() == ctx.inputs[i]->raw();
    }
    for (size_t o = 0; o < step.output_slots.size(); ++o) {
      const int s = step.output_slots[o];
      if (s < 0) continue;
      if (ctx.outputs[o].empty_value()) {
        throw Error(ErrorKind::kInternal, StrCat(g.source, ": node '", n.name, "' (", n.op_type, ") did not produce output ",
                                                 o, " '", n.outputs[o], "'"));
      }
      slots[static_cast<size_t>(s)] = std::move(ctx.outputs[o]);
      if (observer) observer({&n, n.outputs[o], slots[static_cast<size_t>(s)]});
    }
    for (int s : step.free_after) slots[static_cast<size_t>(s)] = Tensor();
  }
  std::vector<Tensor> outputs;
  for (int s : output_slots_) outputs.push_back(slots[static_cast<size_t>(s)]);
  return outputs;
}

}  // namespace ptq
