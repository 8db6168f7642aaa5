// CountMacs: one formula per MatMul/Gemm/Conv form over the shapes of InferStaticShapes.
#include "report/mac_count.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <optional>

namespace ptq {
namespace {

enum class Kind { kMatMul, kGemm, kConv };

struct OpForm {
  const char* domain;
  const char* op;
  Kind kind;
  int a, b;  // the data and weight inputs (Conv: x and w)
  bool integer;
};

constexpr OpForm kForms[] = {
    {"", "MatMul", Kind::kMatMul, 0, 1, false},
    {"", "Gemm", Kind::kGemm, 0, 1, false},
    {"", "Conv", Kind::kConv, 0, 1, false},
    {"", "MatMulInteger", Kind::kMatMul, 0, 1, true},
    {"", "QLinearMatMul", Kind::kMatMul, 0, 3, true},
    {"", "ConvInteger", Kind::kConv, 0, 1, true},
    {"", "QLinearConv", Kind::kConv, 0, 3, true},
    {"com.microsoft", "MatMulIntegerToFloat", Kind::kMatMul, 0, 1, true},
    {"com.microsoft", "DynamicQuantizeMatMul", Kind::kMatMul, 0, 1, true},
    {"com.microsoft", "QGemm", Kind::kGemm, 0, 3, true},
    {"com.microsoft", "QLinearConv", Kind::kConv, 0, 3, true},
};

std::string Domain(const onnx::NodeProto& n) { return n.domain() == "ai.onnx" ? std::string() : n.domain(); }

const OpForm* FormOf(const onnx::NodeProto& n) {
  for (const OpForm& f : kForms) {
    if (n.op_type() == f.op && Domain(n) == f.domain) return &f;
  }
  return nullptr;
}

const onnx::AttributeProto* Attr(const onnx::NodeProto& n, const char* name) {
  for (const auto& a : n.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

std::vector<int64_t> Ints(const onnx::NodeProto& n, const char* name, size_t count, int64_t def) {
  const auto* a = Attr(n, name);
  if (!a || a->ints_size() == 0) return std::vector<int64_t>(count, def);
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// a * b, or nullopt on overflow or an unknown (negative) factor.
std::optional<int64_t> Mul(std::optional<int64_t> a, int64_t b) {
  int64_t r = 0;
  if (!a || *a < 0 || b < 0 || __builtin_mul_overflow(*a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> MatMulMacs(const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.empty() || b.empty()) return std::nullopt;
  const size_t ra = a.size(), rb = b.size();
  std::optional<int64_t> macs = Mul(Mul(Mul(1, ra >= 2 ? a[ra - 2] : 1), a[ra - 1]), rb >= 2 ? b[rb - 1] : 1);
  const size_t ba = ra > 2 ? ra - 2 : 0, bb = rb > 2 ? rb - 2 : 0;  // batch dims, right-aligned
  for (size_t i = 0; i < std::max(ba, bb); ++i) {
    const int64_t da = i < ba ? a[ba - 1 - i] : 1, db = i < bb ? b[bb - 1 - i] : 1;
    macs = Mul(macs, da == 1 ? db : da);
  }
  return macs;
}

std::optional<int64_t> GemmMacs(const onnx::NodeProto& n, const std::vector<int64_t>& a, const std::vector<int64_t>& b) {
  if (a.size() != 2 || b.size() != 2) return std::nullopt;
  const bool ta = Attr(n, "transA") && Attr(n, "transA")->i() != 0;
  const bool tb = Attr(n, "transB") && Attr(n, "transB")->i() != 0;
  return Mul(Mul(Mul(1, ta ? a[1] : a[0]), ta ? a[0] : a[1]), tb ? b[0] : b[1]);
}

std::optional<int64_t> ConvMacs(const onnx::NodeProto& n, const std::vector<int64_t>& x, const std::vector<int64_t>& w) {
  if (x.size() < 3 || w.size() != x.size()) return std::nullopt;
  const size_t s = x.size() - 2;  // spatial dims
  const bool channels_last = Attr(n, "channels_last") && Attr(n, "channels_last")->i() != 0;
  const std::vector<int64_t> strides = Ints(n, "strides", s, 1), dilations = Ints(n, "dilations", s, 1);
  const std::vector<int64_t> pads = Ints(n, "pads", 2 * s, 0);
  const auto* ap = Attr(n, "auto_pad");
  const std::string auto_pad = ap ? ap->s() : "NOTSET";
  if (strides.size() != s || dilations.size() != s || pads.size() != 2 * s) return std::nullopt;
  std::optional<int64_t> macs = Mul(Mul(1, x[0]), w[0]);
  for (size_t i = 1; i < w.size(); ++i) macs = Mul(macs, w[i]);  // C / group * kernel
  for (size_t i = 0; i < s; ++i) {
    const int64_t in = x[channels_last ? 1 + i : 2 + i], k = w[2 + i];
    if (in < 0 || k < 0 || strides[i] <= 0) return std::nullopt;
    int64_t out = 0;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") out = (in + strides[i] - 1) / strides[i];
    else {
      const int64_t span = dilations[i] * (k - 1) + 1;
      const int64_t padded = in + (auto_pad == "VALID" ? 0 : pads[i] + pads[i + s]);
      out = padded >= span ? (padded - span) / strides[i] + 1 : 0;
    }
    macs = Mul(macs, out);
  }
  return macs;
}

int CountFormsIn(const onnx::GraphProto& g) {
  int n = 0;
  for (const auto& node : g.node()) n += FormOf(node) != nullptr;
  return n;
}

int CountSubgraphForms(const onnx::GraphProto& g) {
  int n = 0;
  for (const auto& node : g.node()) {
    for (const auto& a : node.attribute()) {
      if (a.has_g()) n += CountFormsIn(a.g()) + CountSubgraphForms(a.g());
      for (const auto& sub : a.graphs()) n += CountFormsIn(sub) + CountSubgraphForms(sub);
    }
  }
  return n;
}

}  // namespace

MacCount CountMacs(const onnx::ModelProto& model, const std::string& model_dir) {
  MacCount count;
  const StaticShapes st = InferStaticShapes(model, model_dir);
  count.assumed = st.assumed;
  count.no_shape_inputs = st.no_shape_inputs;
  const onnx::ModelProto& inferred = st.model;
  const auto& shapes = st.shapes;
  std::map<std::string, std::string> producer;  // tensor -> op type of the main graph node writing it
  for (const auto& n : inferred.graph().node()) {
    for (const auto& o : n.output()) producer[o] = Domain(n).empty() ? n.op_type() : "";
  }
  auto from_dq = [&](const std::string& t) {
    auto it = producer.find(t);
    return it != producer.end() && it->second == "DequantizeLinear";
  };
  for (const auto& n : inferred.graph().node()) {
    const OpForm* f = FormOf(n);
    if (!f) continue;
    const std::string label = (n.name().empty() ? "(output '" + (n.output_size() ? n.output(0) : "") + "')" : n.name()) +
                              " (" + n.op_type() + ")";
    std::optional<int64_t> macs;
    std::string missing;
    for (int i : {f->a, f->b}) {
      if (i >= n.input_size() || !shapes.count(n.input(i))) missing = i < n.input_size() ? n.input(i) : "(absent)";
    }
    if (missing.empty()) {
      const auto &a = shapes.at(n.input(f->a)), &b = shapes.at(n.input(f->b));
      macs = f->kind == Kind::kMatMul ? MatMulMacs(a, b) : f->kind == Kind::kGemm ? GemmMacs(n, a, b) : ConvMacs(n, a, b);
    }
    if (!macs) {
      count.unknown.push_back(label + ": " + (missing.empty() ? "an input dim is unknown or the sizes do not fit"
                                                              : "the shape of '" + missing + "' is unknown"));
      continue;
    }
    const bool qdq = !f->integer && from_dq(n.input(f->a)) && from_dq(n.input(f->b));
    const std::string key = (*f->domain ? std::string(f->domain) + ":" : "") + f->op + (qdq ? " (QDQ)" : "");
    count.by_op[key] += *macs;
    count.total += *macs;
    if (f->integer || qdq) count.integer += *macs;
  }
  count.subgraph_nodes = CountSubgraphForms(model.graph());
  return count;
}

}  // namespace ptq
