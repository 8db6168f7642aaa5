// SmoothQuant: the candidate activations, their factors, and the factors applied to the float model.
#include "rewrite/smooth_matmul_inputs.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "rewrite/rewrite_graph.h"
#include "runtime/error.h"
#include "runtime/tensor.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

constexpr double kMinFactor = 1e-5, kMaxFactor = 1e5;

// Indexes of a graph: initializers by name, readers of each tensor, the producer of each tensor.
struct GraphIndex {
  explicit GraphIndex(const onnx::GraphProto& g) {
    for (int i = 0; i < g.initializer_size(); ++i) init[g.initializer(i).name()] = i;
    for (const auto& o : g.output()) outputs.insert(o.name());
    for (int i = 0; i < g.node_size(); ++i) {
      for (const auto& in : g.node(i).input()) {
        if (!in.empty()) readers[in].push_back(i);
      }
      for (const auto& out : g.node(i).output()) producer[out] = i;
      names.insert(g.node(i).name());
      for (const auto& out : g.node(i).output()) names.insert(out);
    }
    for (const auto& t : g.initializer()) names.insert(t.name());
    for (const auto& v : g.input()) names.insert(v.name());
  }
  size_t Readers(const std::string& t) const {
    const auto r = readers.find(t);
    return r == readers.end() ? 0 : r->second.size();
  }
  // An initializer of type float and rank `rank` read once (by one node).
  bool OwnFloat(const onnx::GraphProto& g, const std::string& name, int rank) const {
    const auto i = init.find(name);
    if (i == init.end() || Readers(name) != 1) return false;
    const onnx::TensorProto& t = g.initializer(i->second);
    return t.data_type() == onnx::TensorProto::FLOAT && t.dims_size() == rank;
  }
  std::string Unique(const std::string& base) {
    std::string n = base;
    for (int k = 1; names.count(n); ++k) n = base + "_" + std::to_string(k);
    names.insert(n);
    return n;
  }
  std::map<std::string, int> init, producer;
  std::map<std::string, std::vector<int>> readers;
  std::set<std::string> outputs, names;
};

Tensor Value(const onnx::GraphProto& g, const GraphIndex& ix, const std::string& name, const std::string& dir) {
  return TensorFromProto(g.initializer(ix.init.at(name)), dir, "initializer '" + name + "'");
}

void Store(onnx::GraphProto* g, const GraphIndex& ix, const std::string& name, const Tensor& v) {
  TensorToProto(v, name, g->mutable_initializer(ix.init.at(name)));
}

// Divides the 1-D constant `name` [K] by s.
void DivideVector(onnx::GraphProto* g, const GraphIndex& ix, const std::string& name, const std::vector<float>& s,
                  const std::string& dir) {
  Tensor v = Value(*g, ix, name, dir);
  for (int64_t k = 0; k < v.size(); ++k) v.data<float>()[k] /= s[static_cast<size_t>(k)];
  Store(g, ix, name, v);
}

// The other input of a two-input node when the one given is `x`.
std::string Other(const onnx::NodeProto& n, const std::string& x) { return n.input(0) == x ? n.input(1) : n.input(0); }

// Folds 1/s into X's producer when it is a per-channel affine step all of whose readers are smoothed.
bool FoldIntoProducer(onnx::GraphProto* g, const GraphIndex& ix, const std::string& x, const std::vector<float>& s,
                      size_t smoothed_readers, const std::string& dir) {
  const auto p = ix.producer.find(x);
  if (p == ix.producer.end() || ix.outputs.count(x) || ix.Readers(x) != smoothed_readers) return false;
  const onnx::NodeProto& n = g->node(p->second);
  if (!n.domain().empty() || n.output_size() < 1 || n.output(0) != x) return false;
  const int k = static_cast<int>(s.size());
  auto vector_k = [&](const std::string& name) {
    return ix.OwnFloat(*g, name, 1) && g->initializer(ix.init.at(name)).dims(0) == k;
  };
  if (n.op_type() == "LayerNormalization" && n.output_size() == 1 && GetIntAttr(n, "axis", -1) == -1 &&
      n.input_size() >= 2 && vector_k(n.input(1)) && (n.input_size() < 3 || n.input(2).empty() || vector_k(n.input(2)))) {
    DivideVector(g, ix, n.input(1), s, dir);
    if (n.input_size() >= 3 && !n.input(2).empty()) DivideVector(g, ix, n.input(2), s, dir);
    return true;
  }
  if (n.op_type() == "Add" && n.input_size() == 2) {
    for (const std::string& beta : {n.input(0), n.input(1)}) {
      if (!vector_k(beta)) continue;
      const std::string y = Other(n, beta);
      const auto m = ix.producer.find(y);
      if (m == ix.producer.end() || ix.Readers(y) != 1 || ix.outputs.count(y)) return false;
      const onnx::NodeProto& mul = g->node(m->second);
      if (mul.op_type() != "Mul" || !mul.domain().empty() || mul.input_size() != 2) return false;
      for (const std::string& gamma : {mul.input(0), mul.input(1)}) {
        if (!vector_k(gamma) || ix.init.count(Other(mul, gamma))) continue;
        DivideVector(g, ix, gamma, s, dir);
        DivideVector(g, ix, beta, s, dir);
        return true;
      }
      return false;
    }
  }
  return false;
}

// SmoothingCandidates by node slot (nodes may have no name).
std::map<std::string, std::vector<int>> Candidates(const onnx::GraphProto& g, const GraphIndex& ix) {
  std::map<std::string, std::vector<int>> out;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    if (n.op_type() != "MatMul" || !n.domain().empty() || n.input_size() != 2 || ix.init.count(n.input(0))) continue;
    if (!ix.OwnFloat(g, n.input(1), 2) || n.input(0) == n.input(1)) continue;
    out[n.input(0)].push_back(i);
  }
  return out;
}

}  // namespace

std::map<std::string, std::vector<std::string>> SmoothingCandidates(const onnx::ModelProto& model) {
  const GraphIndex ix(model.graph());
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& [x, nodes] : Candidates(model.graph(), ix)) {
    for (int i : nodes) out[x].push_back(model.graph().node(i).name());
  }
  return out;
}

std::map<std::string, std::vector<float>> SmoothingFactors(const onnx::ModelProto& model, const std::string& dir,
                                                           const std::map<std::string, std::vector<float>>& absmax,
                                                           double alpha) {
  const onnx::GraphProto& g = model.graph();
  const GraphIndex ix(g);
  std::map<std::string, std::vector<float>> factors;
  for (const auto& [x, readers] : Candidates(g, ix)) {
    const auto a = absmax.find(x);
    if (a == absmax.end() || a->second.empty()) continue;
    const size_t k = a->second.size();
    std::vector<double> wmax(k, 0.0);
    bool fits = true;
    for (int r : readers) {
      const Tensor w = Value(g, ix, g.node(r).input(1), dir);
      if (w.dim(0) != static_cast<int64_t>(k)) {
        fits = false;
        break;
      }
      const int64_t n = w.dim(1);
      for (size_t c = 0; c < k; ++c) {
        for (int64_t j = 0; j < n; ++j) wmax[c] = std::max(wmax[c], std::fabs(static_cast<double>(w.data<float>()[c * n + j])));
      }
    }
    if (!fits) continue;
    std::vector<float> s(k, 1.0f);
    for (size_t c = 0; c < k; ++c) {
      const double xm = a->second[c];
      if (xm > 0 && wmax[c] > 0 && std::isfinite(xm)) {
        s[c] = static_cast<float>(std::clamp(std::pow(xm, alpha) / std::pow(wmax[c], 1.0 - alpha), kMinFactor, kMaxFactor));
      }
    }
    factors[x] = s;
  }
  return factors;
}

std::map<std::string, std::string> ApplySmoothing(onnx::ModelProto* model, const std::string& dir,
                                                  const std::map<std::string, std::vector<float>>& factors) {
  onnx::GraphProto* g = model->mutable_graph();
  GraphIndex ix(*g);
  const auto candidates = Candidates(*g, ix);
  std::map<std::string, std::string> read;
  std::map<int, std::vector<onnx::NodeProto>> before;  // new Mul nodes, by the slot they go before
  for (const auto& [x, s] : factors) {
    const auto c = candidates.find(x);
    if (c == candidates.end()) {
      ThrowInputError("the calibration table smooths '", x, "', which no MatMul with a weight of its own reads in this model: ",
                      "the table was made for another model");
    }
    const std::vector<int>& readers = c->second;
    for (int r : readers) {  // W[k, :] *= s[k]
      const std::string wn = g->node(r).input(1);
      Tensor w = Value(*g, ix, wn, dir);
      if (w.dim(0) != static_cast<int64_t>(s.size())) {
        ThrowInputError("the calibration table smooths '", x, "' with ", s.size(), " factors, but weight '", wn, "' has ",
                        w.dim(0), " rows: the table was made for another model");
      }
      const int64_t n = w.dim(1);
      for (int64_t k = 0; k < w.dim(0); ++k) {
        for (int64_t j = 0; j < n; ++j) w.data<float>()[k * n + j] *= s[static_cast<size_t>(k)];
      }
      Store(g, ix, wn, w);
    }
    if (FoldIntoProducer(g, ix, x, s, readers.size(), dir)) {
      read[x] = x;
      continue;
    }
    // X / s = X * (1 / s) by a new Mul; only the smoothed readers read it.
    std::vector<float> inv(s.size());
    for (size_t k = 0; k < s.size(); ++k) inv[k] = 1.0f / s[k];
    Tensor t(DataType::kFloat, {static_cast<int64_t>(s.size())});
    std::copy(inv.begin(), inv.end(), t.data<float>());
    const std::string factor = ix.Unique(x + "/smoothing_factor");
    TensorToProto(t, factor, g->add_initializer());
    const std::string xs = ix.Unique(x + "/smoothed");
    onnx::NodeProto mul;
    mul.set_op_type("Mul");
    mul.set_name(ix.Unique(x + "/Smooth"));
    mul.add_input(x);
    mul.add_input(factor);
    mul.add_output(xs);
    for (int r : readers) g->mutable_node(r)->set_input(0, xs);
    before[*std::min_element(readers.begin(), readers.end())].push_back(mul);
    read[x] = xs;
  }
  if (!before.empty()) {  // the Mul nodes go before their first reader (nodes stay in topological order)
    google::protobuf::RepeatedPtrField<onnx::NodeProto> nodes;
    nodes.Swap(g->mutable_node());
    for (int i = 0; i < nodes.size(); ++i) {
      const auto b = before.find(i);
      if (b != before.end()) {
        for (auto& m : b->second) *g->add_node() = std::move(m);
      }
      *g->add_node() = std::move(*nodes.Mutable(i));
    }
  }
  return read;
}

}  // namespace ptq
