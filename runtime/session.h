// The graph interpreter: prepares kernels once, then runs the graph in topological order, freeing
// each intermediate tensor after its last use and letting a caller observe every tensor produced.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/graph.h"
#include "runtime/kernel.h"
#include "runtime/channels_last_layout.h"
#include "runtime/float_fusion.h"
#include "runtime/qdq_fusion.h"

namespace ptq {

// One tensor seen during a run. `node` is nullptr for graph inputs.
struct Observation {
  const Node* node;
  const std::string& name;
  const Tensor& value;
};
using Observer = std::function<void(const Observation&)>;

// An op type the registry has no kernel for, with the nodes that use it.
struct UnsupportedOp {
  std::string domain;
  std::string op_type;
  int opset;
  std::vector<std::string> nodes;
};

// Every unsupported op of the graph and of its subgraphs (empty when all are supported).
std::vector<UnsupportedOp> FindUnsupportedOps(const Graph& graph);

// How a session executes the graph.
struct SessionOptions {
  // false: DequantizeLinear -> MatMul/Conv (-> QuantizeLinear) groups run fused on the integer kernels
  // (runtime/qdq_fusion.h); true: every node literally as written, the spec's float path.
  bool literal_qdq = DefaultLiteralQdq();
  // true: float patterns (Conv -> Relu / Clip, LayerNorm and GELU written op by op) run as one node each
  // (runtime/float_fusion.h); their intermediate tensors are then not observed. Sessions that observe
  // every tensor (calibration, validation) say false.
  bool fuse_float_patterns = true;
  // true: chains of 2-D convolutions run channels last (runtime/channels_last_layout.h); the tensors
  // between them then exist in that layout only. Observing sessions say false.
  bool channels_last = true;
  // true: float MatMul and Gemm keep their constant weights packed for the GEMM as well (one more copy of
  // each, as ONNX Runtime keeps; no packing per run). Observing sessions (calibration, validation) say
  // false: there memory matters more than speed.
  bool prepack_float_weights = true;

  // The options of a session whose observer must see every tensor of the graph as written (no
  // activation fusion; QDQ groups as the default says).
  static SessionOptions ObservingEveryTensor() {
    SessionOptions o;
    o.fuse_float_patterns = false;
    o.channels_last = false;
    o.prepack_float_weights = false;
    return o;
  }

  // The default of literal_qdq for sessions created afterwards (the CLI's --literal-qdq sets it).
  static bool DefaultLiteralQdq();
  static void SetDefaultLiteralQdq(bool literal);
};

class Session {
 public:
  // Checks the graph (every input produced, no cycle, every op supported: one error listing all
  // unsupported op types and their nodes), orders the nodes and creates their kernels. A subgraph's
  // captures are values given to each run beside its inputs (RunSubgraph).
  explicit Session(std::shared_ptr<const Graph> graph, const SessionOptions& options = SessionOptions());
  ~Session();

  // The graph as executed: with QDQ groups fused unless options.literal_qdq.
  const Graph& graph() const { return *graph_; }
  // The QDQ groups fused when the session was created.
  const QdqFusionCount& fused() const { return fused_; }
  // The float patterns fused when the session was created.
  const FloatFusionCount& fused_float() const { return fused_float_; }
  // What the channels-last layout changed when the session was created.
  const ChannelsLastCount& channels_last() const { return channels_last_; }

  // Runs the graph on `feeds` (graph input name -> tensor) and returns the graph outputs in order.
  // Each feed is checked against the declared element type and fixed dimensions; a missing or unknown
  // input is an error naming it. The observer, when given, sees every graph input and every node
  // output right after it is produced. Not thread-safe: one Run at a time per session.
  std::vector<Tensor> Run(const std::map<std::string, Tensor>& feeds, const Observer& observer = nullptr);

  // Runs a subgraph (for control-flow kernels): `inputs` in the order of graph().inputs, each
  // checked against its declared element type only (loop-carried values may change shape), and
  // `captures` in the order of graph().captures. Returns the graph outputs in order. Not observed.
  std::vector<Tensor> RunSubgraph(const std::vector<const Tensor*>& inputs, const std::vector<const Tensor*>& captures);

  // How many node outputs the last Run wrote over the buffer of an input that no one read again (element-wise
  // kernels, KernelContext::reusable; none while an observer watches). For tests and profiles.
  int64_t reused_buffers() const { return reused_buffers_; }

 private:
  struct Step;
  std::vector<Tensor> Execute(std::vector<Tensor>& slots, const Observer& observer);
  std::shared_ptr<const Graph> graph_;
  QdqFusionCount fused_;
  FloatFusionCount fused_float_;
  ChannelsLastCount channels_last_;
  std::vector<Step> steps_;
  int num_slots_ = 0;
  std::map<std::string, int> slot_of_;
  std::vector<int> input_slots_;
  std::vector<int> capture_slots_;
  std::vector<int> output_slots_;
  std::vector<std::pair<int, const Tensor*>> constant_slots_;
  int64_t reused_buffers_ = 0;
};

}  // namespace ptq
