// InferStaticShapes: a copy with fixed input dims, ptq's clean-up of its shape arithmetic, ONNX shape inference.
#include "report/static_shapes.h"

#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <set>

#include "runtime/model_cleanup.h"
#include "runtime/model_io.h"

namespace ptq {
namespace {

using Shapes = std::map<std::string, std::vector<int64_t>>;

void Record(const onnx::ValueInfoProto& v, Shapes* shapes) {
  if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) return;
  std::vector<int64_t> dims;
  for (const auto& d : v.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  (*shapes)[v.name()] = dims;
}

// Sets every dim of `v` whose param is in `params` to 1.
void FixParams(onnx::ValueInfoProto* v, const std::set<std::string>& params) {
  if (!v->type().has_tensor_type() || !v->type().tensor_type().has_shape()) return;
  for (auto& d : *v->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim()) {
    if (d.has_dim_param() && params.count(d.dim_param())) d.set_dim_value(1);
  }
}

// A copy for inference: initializers of more than kSmallElements elements (or external) become graph
// inputs of their type and shape (no weight is copied, and the clean-up cannot fold them); the graph
// inputs' dynamic dims are set to 1 (recorded in `count`).
onnx::ModelProto FixedCopy(const onnx::ModelProto& model, StaticShapes* count) {
  constexpr int64_t kSmallElements = 64;
  onnx::ModelProto copy = CopyWithoutInitializers(model);
  onnx::GraphProto* g = copy.mutable_graph();
  std::set<std::string> params, weights;
  for (auto& in : *g->mutable_input()) {
    if (!in.type().has_tensor_type()) continue;
    if (!in.type().tensor_type().has_shape()) {
      count->no_shape_inputs.push_back(in.name());
      continue;
    }
    auto* dims = in.mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim();
    for (int i = 0; i < dims->size(); ++i) {
      auto& d = (*dims)[i];
      if (d.has_dim_value() && d.dim_value() >= 0) continue;
      count->assumed.push_back({in.name(), i, d.has_dim_param() ? d.dim_param() : "", 1});
      if (d.has_dim_param()) params.insert(d.dim_param());
      d.set_dim_value(1);
    }
  }
  for (const onnx::TensorProto& t : model.graph().initializer()) {
    int64_t n = 1;
    for (int64_t d : t.dims()) n *= d;
    if (n <= kSmallElements && t.data_location() != onnx::TensorProto::EXTERNAL) {
      *g->add_initializer() = t;
      continue;
    }
    onnx::ValueInfoProto v;
    v.set_name(t.name());
    auto* tt = v.mutable_type()->mutable_tensor_type();
    tt->set_elem_type(t.data_type());
    for (int64_t d : t.dims()) tt->mutable_shape()->add_dim()->set_dim_value(d);
    weights.insert(t.name());
    bool declared = false;  // IR < 4: initializers are graph inputs too
    for (auto& in : *g->mutable_input()) {
      if (in.name() == t.name()) {
        in = v;
        declared = true;
      }
    }
    if (!declared) *g->add_input() = v;
  }
  count->no_shape_inputs.erase(std::remove_if(count->no_shape_inputs.begin(), count->no_shape_inputs.end(),
                                              [&](const std::string& n) { return weights.count(n) > 0; }),
                               count->no_shape_inputs.end());
  for (auto& v : *g->mutable_value_info()) FixParams(&v, params);
  for (auto& v : *g->mutable_output()) FixParams(&v, params);
  return copy;
}

// Declared shapes of outputs and value_info removed (inference then finds them itself, and a wrong one
// cannot stop it).
void ClearDeclaredShapes(onnx::ModelProto* m) {
  m->mutable_graph()->clear_value_info();
  for (auto& o : *m->mutable_graph()->mutable_output()) o.mutable_type()->mutable_tensor_type()->clear_shape();
}

// Shape arithmetic folded with the fixed input dims (ptq's clean-up: Shape of statically shaped
// tensors, then what computes from them), repeated while it finds more, then shape inference: with data
// propagation; if that throws (a declared shape it contradicts), again without the declared output and
// value_info shapes; then without data propagation; no inferred shapes when all fail. A clean-up round
// that throws is undone and ends the clean-up.
onnx::ModelProto Inferred(onnx::ModelProto fixed, const std::string& model_dir) {
  for (int round = 0; round < 16; ++round) {
    onnx::ModelProto cleaned = fixed;
    try {
      const CleanupReport r = CleanUpModel(&cleaned, model_dir);
      fixed = std::move(cleaned);
      if (r.constants + r.identities + r.folded + r.shapes == 0) break;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      break;
    }
  }
  onnx::ModelProto copy;
  for (int attempt = 0; attempt < 3; ++attempt) {
    copy = fixed;
    if (attempt > 0) ClearDeclaredShapes(&copy);
    try {
      onnx::ShapeInferenceOptions options{false, 0, attempt < 2};
      onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(), options);
      return copy;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
    }
  }
  return fixed;
}

Shapes ShapesOf(const onnx::GraphProto& g) {
  Shapes shapes;
  for (const auto& t : g.initializer()) shapes[t.name()] = std::vector<int64_t>(t.dims().begin(), t.dims().end());
  for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
    for (const auto& v : *list) Record(v, &shapes);
  }
  return shapes;
}

}  // namespace

StaticShapes InferStaticShapes(const onnx::ModelProto& model, const std::string& model_dir) {
  StaticShapes s;
  s.model = Inferred(FixedCopy(model, &s), model_dir);
  s.shapes = ShapesOf(s.model.graph());
  return s;
}

}  // namespace ptq
