// EqualizeConvPairs: finding the pairs, and the per-channel scales applied to their weights.
#include "rewrite/equalize_conv_pairs.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <vector>

#include "rewrite/rewrite_graph.h"
#include "runtime/tensor.h"
#include "runtime/tensor_proto.h"

namespace ptq {
namespace {

constexpr double kMinScale = 1e-4, kMaxScale = 1e4, kConverged = 1e-4;
constexpr int kMaxSweeps = 16;

struct Pair {
  int conv1 = -1, conv2 = -1;
};

class Equalizer {
 public:
  Equalizer(onnx::ModelProto* model, const std::string& dir) : g_(model->mutable_graph()), dir_(dir) {
    for (int i = 0; i < g_->initializer_size(); ++i) init_[g_->initializer(i).name()] = i;
    for (const auto& o : g_->output()) outputs_.insert(o.name());
    for (int i = 0; i < g_->node_size(); ++i) {
      for (const auto& in : g_->node(i).input()) {
        if (!in.empty()) readers_[in].push_back(i);
      }
    }
  }

  std::vector<Pair> FindPairs() const {
    std::vector<Pair> pairs;
    for (int i = 0; i < g_->node_size(); ++i) {
      const onnx::NodeProto& c1 = g_->node(i);
      if (!UsableConv(c1)) continue;
      int next = SoleReader(c1.output(0));
      if (next >= 0 && g_->node(next).op_type() == "Relu" && g_->node(next).domain().empty()) {
        next = SoleReader(g_->node(next).output(0));
      }
      if (next < 0 || !UsableConv(g_->node(next)) || !Fits(c1, g_->node(next))) continue;
      pairs.push_back({i, next});
    }
    return pairs;
  }

  // One sweep over the pairs; returns the largest |log s| applied.
  double Sweep(const std::vector<Pair>& pairs) {
    double moved = 0;
    for (const Pair& p : pairs) {
      const onnx::NodeProto& c1 = g_->node(p.conv1);
      const onnx::NodeProto& c2 = g_->node(p.conv2);
      Tensor w1 = Value(c1.input(1)), w2 = Value(c2.input(1));
      const int64_t channels = w1.dim(0);
      const int64_t group = GetIntAttr(c2, "group", 1), cpg = w2.dim(1);
      const int64_t mpg = w2.dim(0) / group;
      const int64_t win1 = w1.size() / channels, win2 = w2.size() / (w2.dim(0) * cpg);
      std::vector<double> s(static_cast<size_t>(channels), 1.0);
      float* a = w1.data<float>();
      float* b = w2.data<float>();
      for (int64_t c = 0; c < channels; ++c) {
        double r1 = 0, r2 = 0;
        for (int64_t k = 0; k < win1; ++k) r1 = std::max(r1, std::fabs(static_cast<double>(a[c * win1 + k])));
        const int64_t first = (c / cpg) * mpg, local = c % cpg;
        for (int64_t m = first; m < first + mpg; ++m) {
          for (int64_t k = 0; k < win2; ++k) r2 = std::max(r2, std::fabs(static_cast<double>(b[(m * cpg + local) * win2 + k])));
        }
        if (r1 > 0 && r2 > 0) s[static_cast<size_t>(c)] = std::clamp(std::sqrt(r1 / r2), kMinScale, kMaxScale);
        moved = std::max(moved, std::fabs(std::log(s[static_cast<size_t>(c)])));
      }
      for (int64_t c = 0; c < channels; ++c) {
        const double sc = s[static_cast<size_t>(c)];
        for (int64_t k = 0; k < win1; ++k) a[c * win1 + k] = static_cast<float>(a[c * win1 + k] / sc);
        const int64_t first = (c / cpg) * mpg, local = c % cpg;
        for (int64_t m = first; m < first + mpg; ++m) {
          for (int64_t k = 0; k < win2; ++k) {
            float& v = b[(m * cpg + local) * win2 + k];
            v = static_cast<float>(v * sc);
          }
        }
      }
      Store(c1.input(1), w1);
      Store(c2.input(1), w2);
      if (c1.input_size() > 2 && !c1.input(2).empty()) {
        Tensor b1 = Value(c1.input(2));
        for (int64_t c = 0; c < channels; ++c) {
          b1.data<float>()[c] = static_cast<float>(b1.data<float>()[c] / s[static_cast<size_t>(c)]);
        }
        Store(c1.input(2), b1);
      }
    }
    return moved;
  }

 private:
  int SoleReader(const std::string& t) const {
    if (outputs_.count(t)) return -1;
    const auto r = readers_.find(t);
    if (r == readers_.end() || r->second.size() != 1) return -1;
    const onnx::NodeProto& n = g_->node(r->second[0]);
    return n.input(0) == t ? r->second[0] : -1;
  }

  // A float constant used by one node alone (once).
  bool OwnConstant(const std::string& name, int rank_at_least) const {
    const auto i = init_.find(name);
    const auto r = readers_.find(name);
    if (i == init_.end() || r == readers_.end() || r->second.size() != 1) return false;
    const onnx::TensorProto& t = g_->initializer(i->second);
    return t.data_type() == onnx::TensorProto::FLOAT && t.dims_size() >= rank_at_least;
  }

  // Conv2's input channels are Conv1's output channels: C = group2 * (C / group2), M2 divisible by group2.
  bool Fits(const onnx::NodeProto& c1, const onnx::NodeProto& c2) const {
    const onnx::TensorProto& w1 = g_->initializer(init_.at(c1.input(1)));
    const onnx::TensorProto& w2 = g_->initializer(init_.at(c2.input(1)));
    const int64_t group = GetIntAttr(c2, "group", 1);
    const bool bias_fits = c1.input_size() < 3 || c1.input(2).empty() ||
                           g_->initializer(init_.at(c1.input(2))).dims(0) == w1.dims(0);
    return bias_fits && group >= 1 && w2.dims(1) * group == w1.dims(0) && w2.dims(0) % group == 0 && w1.dims(0) > 0 &&
           w2.dims(0) > 0;
  }

  bool UsableConv(const onnx::NodeProto& n) const {
    if (n.op_type() != "Conv" || !n.domain().empty() || n.input_size() < 2 || n.output_size() != 1) return false;
    if (!OwnConstant(n.input(1), 3)) return false;
    if (n.input_size() > 2 && !n.input(2).empty() && !OwnConstant(n.input(2), 1)) return false;
    return true;
  }

  Tensor Value(const std::string& name) const {
    return TensorFromProto(g_->initializer(init_.at(name)), dir_, "initializer '" + name + "'");
  }
  void Store(const std::string& name, const Tensor& v) { TensorToProto(v, name, g_->mutable_initializer(init_.at(name))); }

  onnx::GraphProto* g_;
  std::string dir_;
  std::map<std::string, int> init_;
  std::map<std::string, std::vector<int>> readers_;
  std::set<std::string> outputs_;
};

}  // namespace

int EqualizeConvPairs(onnx::ModelProto* model, const std::string& model_dir) {
  Equalizer e(model, model_dir);
  const std::vector<Pair> pairs = e.FindPairs();
  for (int sweep = 0; sweep < kMaxSweeps && !pairs.empty(); ++sweep) {
    if (e.Sweep(pairs) < kConverged) break;
  }
  return static_cast<int>(pairs.size());
}

}  // namespace ptq
