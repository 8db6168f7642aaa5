// A subgraph of a control-flow node (If's branches, Loop's body) prepared as a Session, with the
// mapping from the node's implicit inputs to the subgraph's captures.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/kernel.h"
#include "runtime/session.h"

namespace ptq {

class Subgraph {
 public:
  // The graph attribute `attr` of the node; throws an input error when it is missing.
  Subgraph(const KernelInit& init, const std::string& attr);

  const Graph& graph() const { return session_->graph(); }
  int num_inputs() const { return static_cast<int>(graph().inputs.size()); }
  int num_outputs() const { return static_cast<int>(graph().outputs.size()); }

  // Runs the subgraph on `inputs` (its formal inputs, in order) with its captures taken from the
  // node's implicit inputs in `ctx`.
  std::vector<Tensor> Run(const std::vector<const Tensor*>& inputs, const KernelContext& ctx);

 private:
  std::unique_ptr<Session> session_;
  std::vector<size_t> capture_index_;  // per capture: its position in the node's implicit inputs
};

}  // namespace ptq
