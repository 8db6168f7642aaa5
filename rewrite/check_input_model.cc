// CheckInputModel: the float model must be valid ONNX, with convolution ranks libonnx's inference can take.
#include "rewrite/check_input_model.h"

#include <onnx/checker.h>

#include <map>
#include <set>
#include <string>

#include "rewrite/rewrite_graph.h"
#include "runtime/error.h"
#include "runtime/model_checker.h"

namespace ptq {
namespace {

// The rank of every tensor whose rank the model or the table states: graph inputs, outputs and
// value_info with a shape, initializers, Constant outputs, and the shapes calibration observed.
std::map<std::string, int> KnownRanks(const onnx::ModelProto& m, const QuantTable& table) {
  std::map<std::string, int> rank;
  for (const auto& [name, q] : table.tensors) {
    if (!q.shape.empty()) rank[name] = static_cast<int>(q.shape.size());
  }
  for (const auto& [name, t] : table.observed) rank[name] = static_cast<int>(t.shape.size());
  for (const auto* list : {&m.graph().input(), &m.graph().value_info(), &m.graph().output()}) {
    for (const auto& v : *list) {
      if (v.type().has_tensor_type() && v.type().tensor_type().has_shape()) {
        rank[v.name()] = v.type().tensor_type().shape().dim_size();
      }
    }
  }
  for (const auto& t : m.graph().initializer()) rank[t.name()] = t.dims_size();
  for (const auto& n : m.graph().node()) {
    if (n.op_type() != "Constant" || n.output_size() != 1) continue;
    for (const auto& a : n.attribute()) {
      if (a.name() == "value" && a.has_t()) rank[n.output(0)] = a.t().dims_size();
    }
  }
  return rank;
}

int64_t KernelShapeLength(const onnx::NodeProto& n) {
  for (const auto& a : n.attribute()) {
    if (a.name() == "kernel_shape") return a.ints_size();
  }
  return -1;
}

// libonnx 1.12's convolution and pooling shape inference (run by the version converter and by the
// validation of the rewritten model) indexes the data input's dimensions by the weight's rank or the
// kernel_shape's length without checking them: a mismatch would crash ptq instead of failing.
void CheckConvolutionRanks(const onnx::ModelProto& m, const QuantTable& table) {
  static const std::set<std::string> kConv = {"Conv", "ConvTranspose"};
  static const std::set<std::string> kPool = {"MaxPool", "AveragePool", "LpPool"};
  const std::map<std::string, int> rank = KnownRanks(m, table);
  for (const auto& n : m.graph().node()) {
    const bool conv = kConv.count(n.op_type()) > 0, pool = kPool.count(n.op_type()) > 0;
    if ((!conv && !pool) || n.input_size() == 0) continue;
    const auto x = rank.find(n.input(0));
    if (x == rank.end()) continue;
    if (x->second < 3) {
      ThrowInputError("node '", n.name(), "' (", n.op_type(), "): its input '", n.input(0), "' has rank ", x->second,
                      "; a convolution or pooling input has a batch, a channel and at least one spatial axis");
    }
    if (conv && n.input_size() >= 2) {
      const auto w = rank.find(n.input(1));
      if (w != rank.end() && w->second != x->second) {
        ThrowInputError("node '", n.name(), "' (", n.op_type(), "): its input '", n.input(0), "' has rank ",
                        x->second, " but its weight '", n.input(1), "' has rank ", w->second, " (they must be equal)");
      }
    }
    const int64_t kernel = KernelShapeLength(n);
    if (kernel >= 0 && kernel != x->second - 2) {
      ThrowInputError("node '", n.name(), "' (", n.op_type(), "): kernel_shape has ", kernel,
                      " values but its input '", n.input(0), "' has ", x->second - 2, " spatial axes");
    }
  }
}

}  // namespace

void CheckInputModel(const onnx::ModelProto& model, const std::string& model_dir, const QuantTable& table) {
  try {
    try {
      CheckModel(model, model_dir);
    } catch (const std::exception& e) {
      // Nodes out of topological order are no obstacle: the runtime sorts them, and so does the
      // rewrite's output (RewriteGraph::WriteTo). Check the model in that order instead.
      if (std::string(e.what()).find("topologically sorted") == std::string::npos) throw;
      onnx::ModelProto sorted = model;
      try {
        RewriteGraph(model).WriteTo(&sorted);
      } catch (const Error&) {
        ThrowInputError("the float model's nodes form a cycle");
      }
      CheckModel(sorted, model_dir);
    }
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception& e) {
    ThrowInputError("the float model is not valid ONNX (onnx::checker, ONNX 1.12): ", e.what());
  }
  CheckConvolutionRanks(model, table);
}

}  // namespace ptq
