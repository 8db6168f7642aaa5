// Pass: Gemm(A, B, C) with a constant B (and alpha = beta = 1, transA = 0), when op_types lists Gemm and
// the node is not excluded, becomes MatMul(A, B') + Add(C),
// B' = B or Bᵀ stored [K, N], so that one MatMul rule quantizes both (and C folds as the bias).
#include "rewrite/passes.h"

#include <optional>

#include <algorithm>

#include "runtime/error.h"

namespace ptq {
namespace {

struct GemmMatch {
  int index;
  bool trans_b;
};

std::optional<GemmMatch> Find(const RewriteGraph& g, const QuantizationOptions& config, int start, int* next) {
  const bool wanted = config.quantizes("Gemm");
  for (int i = start; wanted && i < g.size(); ++i) {
    const onnx::NodeProto& n = g.node(i);
    *next = i + 1;
    if (n.op_type() != "Gemm" || n.input_size() < 2 || !g.IsInitializer(n.input(1))) continue;
    if (IsExcluded(config, n.name())) continue;  // an excluded Gemm stays as it is
    if (GetFloatAttr(n, "alpha", 1.0f) != 1.0f || GetIntAttr(n, "transA", 0) != 0) continue;
    const bool has_c = n.input_size() > 2 && !n.input(2).empty();
    if (has_c && (GetFloatAttr(n, "beta", 1.0f) != 1.0f || !g.IsInitializer(n.input(2)))) continue;
    if (g.Initializer(n.input(1)).dims_size() != 2) continue;
    return GemmMatch{i, GetIntAttr(n, "transB", 0) != 0};
  }
  return std::nullopt;
}

// Bᵀ of a float [N, K] matrix.
Tensor Transpose2d(const Tensor& b) {
  const int64_t rows = b.dim(0), cols = b.dim(1);
  Tensor t(DataType::kFloat, {cols, rows});
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t.data<float>()[c * rows + r] = b.data<float>()[r * cols + c];
  }
  return t;
}

void Apply(RewriteGraph* g, const GemmMatch& m, QuantTable* table) {
  const onnx::NodeProto gemm = g->node(m.index);
  std::string weight = gemm.input(1);
  if (m.trans_b) {
    const Tensor b = g->InitializerValue(weight);
    if (b.dtype() != DataType::kFloat) return;
    const std::string t = g->NewName(weight + "/transposed");
    g->AddInitializer(t, Transpose2d(b));
    auto it = table->tensors.find(weight);
    if (it != table->tensors.end()) {  // axis a of [N, K] is axis 1 - a of [K, N], both ways
      TensorQuant q = it->second;
      if (q.axis >= 0) q.axis = 1 - q.axis;
      if (q.shape.size() == 2) std::swap(q.shape[0], q.shape[1]);
      table->tensors[t] = q;
    }
    weight = t;
  }
  const bool has_c = gemm.input_size() > 2 && !gemm.input(2).empty();
  const std::string y = gemm.output(0);
  g->RemoveNode(m.index);
  if (!has_c) {
    g->AddNode("MatMul", {gemm.input(0), weight}, {y}, gemm.name());
    return;
  }
  const std::string product = g->NewName(y + "/matmul");
  g->AddNode("MatMul", {gemm.input(0), weight}, {product}, gemm.name());  // the Gemm's name: exclude_nodes and reports
  g->AddNode("Add", {product, gemm.input(2)}, {y}, g->NewName(gemm.name() + "/Add"));
}

}  // namespace

bool CanonicalizeGemm(RewriteGraph* g, const QuantizationOptions& config, QuantTable* table) {
  bool changed = false;
  int next = 0;
  while (auto m = Find(*g, config, next, &next)) {
    Apply(g, *m, table);
    changed = true;
  }
  return changed;
}

}  // namespace ptq
