// CleanUpModel: Constant and Identity folding, evaluation of constant nodes, static Shape folding.
#include "runtime/model_cleanup.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <map>
#include <memory>
#include <set>

#include "runtime/model_io.h"
#include "runtime/session.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

constexpr int64_t kMaxGrowth = 65536;  // elements a folded output may hold beyond its inputs'

bool Foldable(const onnx::NodeProto& n) {
  static const std::set<std::string> kNever = {
      "RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Multinomial", "Bernoulli",
      "If", "Loop", "Scan", "QuantizeLinear", "DequantizeLinear", "DynamicQuantizeLinear", "Constant"};
  const bool onnx_domain = n.domain().empty() || n.domain() == "ai.onnx";
  if (!onnx_domain || kNever.count(n.op_type())) return false;
  for (const auto& a : n.attribute()) {
    if (a.type() == onnx::AttributeProto::GRAPH || a.type() == onnx::AttributeProto::GRAPHS) return false;
  }
  return true;
}

// Every name read inside subgraphs (If/Loop/Scan bodies), at any depth.
void NamesReadInSubgraphs(const onnx::GraphProto& g, bool inside, std::set<std::string>* out) {
  for (const auto& n : g.node()) {
    if (inside) out->insert(n.input().begin(), n.input().end());
    for (const auto& a : n.attribute()) {
      if (a.has_g()) NamesReadInSubgraphs(a.g(), true, out);
      for (const auto& sub : a.graphs()) NamesReadInSubgraphs(sub, true, out);
    }
  }
}

class Cleaner {
 public:
  Cleaner(onnx::ModelProto* m, const std::string& dir) : m_(m), dir_(dir) {
    for (const auto& t : m->graph().initializer()) constants_.insert(t.name());
    for (const auto& o : m->graph().output()) keep_.insert(o.name());
    NamesReadInSubgraphs(m->graph(), false, &keep_);
  }

  // One sweep over the nodes in file order (producers first); returns whether anything changed.
  bool Sweep(CleanupReport* r) {
    bool changed = false;
    auto* nodes = m_->mutable_graph()->mutable_node();
    google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
    for (auto& n : *nodes) {
      Rename(&n);
      if (Fold(n, r)) {
        changed = true;
        continue;
      }
      *kept.Add() = std::move(n);
    }
    nodes->Swap(&kept);
    return changed;
  }

  // Readers of removed Identity outputs read the constant instead (graph outputs keep their producer).
  void Rename(onnx::NodeProto* n) const {
    for (int i = 0; i < n->input_size(); ++i) {
      auto it = alias_.find(n->input(i));
      if (it != alias_.end()) n->set_input(i, it->second);
    }
  }

  bool IsConstant(const std::string& t) const { return t.empty() || constants_.count(t) > 0; }

  void AddInitializer(const std::string& name, const Tensor& value) {
    TensorToProto(value, name, m_->mutable_graph()->add_initializer());
    constants_.insert(name);
  }

  const onnx::TensorProto* Initializer(const std::string& name) {
    if (index_.size() != static_cast<size_t>(m_->graph().initializer_size())) {
      index_.clear();
      for (const auto& t : m_->graph().initializer()) index_[t.name()] = &t;
    }
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : it->second;
  }

  // Static shapes from ONNX's shape inference, on a copy without large weight data (only shapes and
  // small constants matter to inference).
  void InferStaticShapes() {
    onnx::ModelProto skeleton = CopyForShapeInference(*m_);
    try {
      onnx::ShapeInferenceOptions options{false, 0, false};
      onnx::shape_inference::InferShapes(skeleton, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception&) {
      return;  // shapes stay unknown; nothing is folded from them
    }
    const auto& g = skeleton.graph();
    for (const auto* list : {&g.input(), &g.value_info(), &g.output()}) {
      for (const auto& v : *list) {
        if (!v.type().has_tensor_type() || !v.type().tensor_type().has_shape()) continue;
        std::vector<int64_t> dims;
        for (const auto& d : v.type().tensor_type().shape().dim()) dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
        static_shape_[v.name()] = dims;
      }
    }
  }

 private:
  bool Fold(const onnx::NodeProto& n, CleanupReport* r) {
    if (n.op_type() == "Constant" && (n.domain().empty() || n.domain() == "ai.onnx") && n.output_size() == 1 &&
        !keep_.count(n.output(0))) {
      return FoldConstant(n, r);
    }
    for (const auto& o : n.output()) {
      if (keep_.count(o)) return false;
    }
    if (n.op_type() == "Identity" && n.input_size() == 1 && constants_.count(n.input(0)) && n.output_size() == 1) {
      alias_[n.output(0)] = n.input(0);
      ++r->identities;
      return true;
    }
    if (n.op_type() == "Shape" && FoldShape(n, r)) return true;
    if (n.op_type() == "Gather" && FoldGatherOfShape(n, r)) return true;
    if (!Foldable(n)) return false;
    for (const auto& in : n.input()) {
      if (!IsConstant(in)) return false;
    }
    return Evaluate(n, r);
  }

  bool FoldConstant(const onnx::NodeProto& n, CleanupReport* r) {
    // The runtime decodes every kind of Constant (value, value_float(s), value_int(s)).
    onnx::ModelProto one;
    *one.mutable_opset_import() = m_->opset_import();
    *one.mutable_graph()->add_node() = n;
    const Graph g = GraphFromModel(one, dir_, "Constant node '" + n.name() + "'");
    AddInitializer(n.output(0), g.constants.at(n.output(0)));
    ++r->constants;
    return true;
  }

  // Shape(x) with x's shape fully static (start/end of opset 15 applied).
  bool FoldShape(const onnx::NodeProto& n, CleanupReport* r) {
    auto it = static_shape_.find(n.input(0));
    if (it == static_shape_.end()) return false;
    std::vector<int64_t> dims = it->second;
    const int64_t rank = static_cast<int64_t>(dims.size());
    int64_t start = 0, end = rank;
    for (const auto& a : n.attribute()) {
      if (a.name() == "start") start = a.i();
      if (a.name() == "end") end = a.i();
    }
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::min(std::max<int64_t>(start, 0), rank);
    end = std::min(std::max<int64_t>(end, start), rank);
    std::vector<int64_t> out(dims.begin() + start, dims.begin() + end);
    shape_of_[n.output(0)] = out;  // for a Gather of single dimensions (FoldGatherOfShape)
    for (int64_t d : out) {
      if (d < 0) return false;
    }
    AddInitializer(n.output(0), Tensor::FromVector<int64_t>({static_cast<int64_t>(out.size())}, out));
    ++r->shapes;
    return true;
  }

  // Gather(Shape(x), constant indices) along axis 0 where the gathered dimensions of x are static,
  // though others are not (x.size(1) of a tensor with a dynamic batch axis).
  bool FoldGatherOfShape(const onnx::NodeProto& n, CleanupReport* r) {
    if (n.input_size() != 2) return false;
    auto shape = shape_of_.find(n.input(0));
    const onnx::TensorProto* idx = Initializer(n.input(1));
    if (shape == shape_of_.end() || !idx) return false;
    for (const auto& a : n.attribute()) {
      if (a.name() == "axis" && a.i() != 0) return false;
    }
    const Tensor indices = TensorFromProto(*idx, dir_, "indices of node '" + n.name() + "'");
    if (indices.dtype() != DataType::kInt64 && indices.dtype() != DataType::kInt32) return false;
    const int64_t rank = static_cast<int64_t>(shape->second.size());
    std::vector<int64_t> out;
    for (int64_t i = 0; i < indices.size(); ++i) {
      int64_t k = static_cast<int64_t>(indices.GetAsDouble(i));
      if (k < 0) k += rank;
      if (k < 0 || k >= rank || shape->second[static_cast<size_t>(k)] < 0) return false;
      out.push_back(shape->second[static_cast<size_t>(k)]);
    }
    AddInitializer(n.output(0), Tensor::FromVector<int64_t>(indices.shape(), out));
    ++r->shapes;
    return true;
  }

  bool Evaluate(const onnx::NodeProto& n, CleanupReport* r) {
    onnx::ModelProto one;
    one.set_ir_version(m_->ir_version());
    *one.mutable_opset_import() = m_->opset_import();
    auto* g = one.mutable_graph();
    *g->add_node() = n;
    int64_t in_elements = 0;
    std::set<std::string> added;
    for (const auto& in : n.input()) {
      if (in.empty() || !added.insert(in).second) continue;
      const onnx::TensorProto* t = Initializer(in);
      if (!t) return false;
      *g->add_initializer() = *t;
      int64_t e = 1;
      for (int64_t d : t->dims()) e *= d;
      in_elements += e;
    }
    for (const auto& o : n.output()) {
      if (!o.empty()) g->add_output()->set_name(o);
    }
    std::vector<Tensor> out;
    try {
      Session s(std::make_shared<const Graph>(GraphFromModel(one, dir_, "node '" + n.name() + "'")));
      out = s.Run({});
    } catch (const Error&) {
      return false;  // an op ptq cannot run here stays a node (the session reports it if it matters)
    }
    for (const Tensor& t : out) {
      if (t.empty_value() || t.size() > std::max(in_elements, kMaxGrowth)) return false;
    }
    size_t k = 0;
    for (const auto& o : n.output()) {
      if (!o.empty()) AddInitializer(o, out[k++]);
    }
    ++r->folded;
    return true;
  }

  onnx::ModelProto* m_;
  std::string dir_;
  std::set<std::string> constants_, keep_;
  std::map<std::string, std::string> alias_;
  std::map<std::string, const onnx::TensorProto*> index_;
  std::map<std::string, std::vector<int64_t>> static_shape_;  // inferred shapes, -1 for unknown dims
  std::map<std::string, std::vector<int64_t>> shape_of_;      // Shape node output -> the dims it holds
};

// Nodes none of whose outputs is read (a Shape whose Gather was folded), removed back to front.
int DropDeadNodes(onnx::ModelProto* m) {
  std::map<std::string, int> reads;
  for (const auto& o : m->graph().output()) ++reads[o.name()];
  std::set<std::string> sub;
  NamesReadInSubgraphs(m->graph(), true, &sub);
  for (const auto& s : sub) ++reads[s];
  for (const auto& n : m->graph().node()) {
    for (const auto& i : n.input()) ++reads[i];
  }
  auto* nodes = m->mutable_graph()->mutable_node();
  std::vector<bool> dead(static_cast<size_t>(nodes->size()), false);
  int removed = 0;
  for (int i = nodes->size() - 1; i >= 0; --i) {
    const onnx::NodeProto& n = nodes->Get(i);
    bool used = false;
    for (const auto& o : n.output()) used = used || (!o.empty() && reads[o] > 0);
    if (used) continue;
    dead[static_cast<size_t>(i)] = true;
    ++removed;
    for (const auto& in : n.input()) --reads[in];
  }
  google::protobuf::RepeatedPtrField<onnx::NodeProto> kept;
  for (int i = 0; i < nodes->size(); ++i) {
    if (!dead[static_cast<size_t>(i)]) *kept.Add() = std::move(*nodes->Mutable(i));
  }
  nodes->Swap(&kept);
  return removed;
}

// Initializers that nothing reads any more (the inputs of folded nodes), and their graph-input entries.
void DropUnread(onnx::ModelProto* m, const std::set<std::string>& before) {
  std::set<std::string> read;
  for (const auto& o : m->graph().output()) read.insert(o.name());
  for (const auto& n : m->graph().node()) read.insert(n.input().begin(), n.input().end());
  NamesReadInSubgraphs(m->graph(), true, &read);
  auto* g = m->mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::TensorProto> inits;
  std::set<std::string> dropped;
  for (auto& t : *g->mutable_initializer()) {
    if (read.count(t.name()) || !before.count(t.name())) *inits.Add() = std::move(t);
    else dropped.insert(t.name());
  }
  g->mutable_initializer()->Swap(&inits);
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
  for (auto& v : *g->mutable_input()) {
    if (!dropped.count(v.name())) *inputs.Add() = std::move(v);
  }
  g->mutable_input()->Swap(&inputs);
}

}  // namespace

CleanupReport CleanUpModel(onnx::ModelProto* model, const std::string& model_dir) {
  CleanupReport r;
  std::set<std::string> read_before;  // initializers that nodes read before the clean-up
  for (const auto& n : model->graph().node()) read_before.insert(n.input().begin(), n.input().end());
  Cleaner c(model, model_dir);
  bool shapes_known = false;
  for (int sweep = 0; sweep < 64; ++sweep) {
    if (c.Sweep(&r)) continue;
    if (shapes_known) break;
    c.InferStaticShapes();  // once the constants are folded, shape inference sees them
    shapes_known = true;
  }
  if (r.constants + r.identities + r.folded + r.shapes > 0) {
    DropDeadNodes(model);
    DropUnread(model, read_before);
  }
  return r;
}

}  // namespace ptq
