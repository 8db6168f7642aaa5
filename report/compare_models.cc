// CompareModels: the two models' inputs and outputs checked, their 8-bit tensors matched, Validate, the
// report JSON.
#include "report/compare_models.h"

#include <algorithm>
#include <set>

#include "report/report_json.h"
#include "report/twin_match.h"
#include "runtime/error.h"

namespace ptq {
namespace {

std::string TypeText(const ValueInfo& v) {
  return (v.is_tensor ? DataTypeName(v.dtype) : std::string("non-tensor")) + " " + DeclaredShapeString(v);
}

std::string NameList(const std::vector<ValueInfo>& values) {
  std::string s;
  for (const ValueInfo& v : values) s += (s.empty() ? "'" : ", '") + v.name + "'";
  return s.empty() ? "none" : s;
}

const ValueInfo* Find(const std::vector<ValueInfo>& values, const std::string& name) {
  for (const ValueInfo& v : values) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

// The inputs differ: an input error naming both models.
[[noreturn]] void Differ(const Graph& f, const Graph& q, const std::string& what) {
  ThrowInputError("the two models take different inputs: ", what, " (float model ", f.source, ": ", NameList(f.inputs),
                  "; int8 model ", q.source, ": ", NameList(q.inputs), ")");
}

// The int8 model with its outputs in the float model's order; an input error when the names differ.
Graph OutputsInFloatOrder(const Graph& f, const Graph& q) {
  std::vector<ValueInfo> ordered;
  for (const ValueInfo& o : f.outputs) {
    const ValueInfo* match = Find(q.outputs, o.name);
    if (!match) break;
    ordered.push_back(*match);
  }
  if (ordered.size() != f.outputs.size() || q.outputs.size() != f.outputs.size()) {
    ThrowInputError("the two models have different outputs: float model ", f.source, ": ", NameList(f.outputs),
                    "; int8 model ", q.source, ": ", NameList(q.outputs), " (outputs are compared by name)");
  }
  Graph g = q;  // constants share their buffers: no weight is copied
  g.outputs = std::move(ordered);
  return g;
}

bool IsQuantizedOp(const Node& n) {
  const std::string& t = n.op_type;
  return t == "QuantizeLinear" || t == "DynamicQuantizeLinear" || t.rfind("QLinear", 0) == 0 ||
         t.find("Integer") != std::string::npos || t == "QGemm" || t == "QAttention";
}

}  // namespace

Graph SharedInputs(const Graph& f, const Graph& q) {
  for (const ValueInfo& v : q.inputs) {
    if (!Find(f.inputs, v.name)) Differ(f, q, "the int8 model takes '" + v.name + "', the float model does not");
  }
  Graph shared;
  shared.source = f.source;
  for (const ValueInfo& v : f.inputs) {
    const ValueInfo* w = Find(q.inputs, v.name);
    if (!w) Differ(f, q, "the float model takes '" + v.name + "', the int8 model does not");
    const std::string both = "input '" + v.name + "' is " + TypeText(v) + " in the float model but " + TypeText(*w) +
                             " in the int8 model";
    if (v.is_tensor != w->is_tensor || v.dtype != w->dtype) Differ(f, q, both);
    ValueInfo merged = v;
    if (v.has_shape && w->has_shape) {
      if (v.shape.size() != w->shape.size()) Differ(f, q, both);
      for (size_t i = 0; i < v.shape.size(); ++i) {
        const Dim &a = v.shape[i], &b = w->shape[i];
        if (a.value >= 0 && b.value >= 0 && a.value != b.value) Differ(f, q, both);
        if (a.value < 0 && b.value >= 0) merged.shape[i] = b;
      }
    } else if (w->has_shape) {
      merged = *w;
    }
    shared.inputs.push_back(std::move(merged));
  }
  return shared;
}

nlohmann::json CompareModels(const Graph& float_model, const Graph& int8_model, const BatchSourceFactory& batches,
                             const Tensor* labels, const CompareOptions& options) {
  SharedInputs(float_model, int8_model);
  const Graph q = OutputsInFloatOrder(float_model, int8_model);
  const std::map<std::string, std::string> twins =
      options.per_layer ? MatchTwins(float_model, q) : std::map<std::string, std::string>();
  const ValidationResult r = Validate(float_model, q, twins, batches(), labels, options.per_layer, options.tasks);
  if (labels && labels->size() < r.samples) {
    ThrowInputError(options.labels_name, ": ", labels->size(), " labels for ", r.samples, " samples");
  }
  std::vector<std::string> warnings;
  const bool quantized = std::any_of(q.nodes.begin(), q.nodes.end(), IsQuantizedOp);
  if (!quantized) {
    warnings.push_back("the int8 model " + q.source + " has no quantized op (QuantizeLinear, QLinear*, *Integer*)");
  } else if (options.per_layer && r.layers.empty()) {
    warnings.push_back("no 8-bit tensor of " + q.source + " could be matched to a tensor of " + float_model.source +
                       ": the report has no layer rows");
  }
  nlohmann::json provenance = {{"ptq_version", PTQ_VERSION}};
  provenance.update(options.provenance);
  provenance["validation_samples"] = r.samples;
  if (options.per_layer) provenance["matched_layers"] = r.layers.size();
  std::map<std::string, int> op_counts;
  for (const Node& n : q.nodes) ++op_counts[n.op_type];
  nlohmann::json model = options.model;
  model["op_counts"] = op_counts;
  return ReportJson(r, provenance, model, {}, GateConfig{}, warnings);
}

}  // namespace ptq
