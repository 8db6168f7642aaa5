// Subgraph: a Session over a graph attribute, fed with the control-flow node's implicit inputs.
#include "runtime/ops/control/subgraph.h"

#include <algorithm>

namespace ptq {

Subgraph::Subgraph(const KernelInit& init, const std::string& attr) {
  std::shared_ptr<const Graph> g = init.attrs->GetGraph(attr);
  if (!g) ThrowInputError("required graph attribute '", attr, "' is missing");
  for (const std::string& c : g->captures) {
    const auto it = std::find(init.implicit_inputs.begin(), init.implicit_inputs.end(), c);
    if (it == init.implicit_inputs.end()) {
      throw Error(ErrorKind::kInternal, StrCat("capture '", c, "' of subgraph '", attr, "' is not an implicit input"));
    }
    capture_index_.push_back(static_cast<size_t>(it - init.implicit_inputs.begin()));
  }
  session_ = std::make_unique<Session>(std::move(g));
}

std::vector<Tensor> Subgraph::Run(const std::vector<const Tensor*>& inputs, const KernelContext& ctx) {
  std::vector<const Tensor*> captures;
  captures.reserve(capture_index_.size());
  for (size_t i : capture_index_) {
    if (i >= ctx.implicit_inputs.size() || !ctx.implicit_inputs[i]) {
      throw Error(ErrorKind::kInternal, "control-flow node run without its implicit inputs");
    }
    captures.push_back(ctx.implicit_inputs[i]);
  }
  return session_->RunSubgraph(inputs, captures);
}

}  // namespace ptq
