// The rewrite's graph queries are indexed: planning and every pass examine a number of nodes linear in
// the graph's size (counted by RewriteGraph::node_visits), not quadratic, on chains of 1,000 and
// 20,000 nodes.
#include <gtest/gtest.h>

#include <string>

#include "rewrite/passes.h"
#include "rewrite/quant_plan.h"
#include "tests/rewrite/tensor_quant_builder.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;
using testing::Param;

// `blocks` x (MatMul -> bias Add -> Relu): 3 nodes per block, every activation in the table.
struct Chain {
  onnx::ModelProto model;
  QuantTable table;
};

Chain MakeChain(int blocks) {
  ModelBuilder m;
  Chain c;
  m.Input("x0", DataType::kFloat, {-1, 2});
  c.table.tensors["x0"] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
  for (int i = 0; i < blocks; ++i) {
    const std::string k = std::to_string(i), next = "x" + std::to_string(i + 1);
    m.Initializer("w" + k, Tensor::FromVector<float>({2, 2}, {0.5f, -0.25f, 0.75f, 1.0f}));
    m.Initializer("b" + k, Tensor::FromVector<float>({2}, {0.1f, -0.1f}));
    m.Node("MatMul", {"x" + k, "w" + k}, {"p" + k}, "mm" + k);
    m.Node("Add", {"p" + k, "b" + k}, {"a" + k}, "add" + k);
    m.Node("Relu", {"a" + k}, {next}, "relu" + k);
    c.table.tensors["a" + k] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
    c.table.tensors[next] = Param(TensorRole::kActivation, {0.02f}, DataType::kUint8);
  }
  m.Output("x" + std::to_string(blocks), DataType::kFloat, {-1, 2});
  c.model = m.model();
  return c;
}

// Node visits of planning plus all passes of `format`, per node of the input graph.
double VisitsPerNode(int blocks, QuantFormat format) {
  const Chain c = MakeChain(blocks);
  RewriteGraph g(c.model);
  QuantizationOptions o;
  o.attention = false;
  o.format = format;
  const QuantPlan plan = MakeQuantPlan(g, c.model, c.table, o);
  EXPECT_EQ(static_cast<int>(plan.nodes.size()), blocks);
  RunRewritePasses(&g, plan, format);
  return static_cast<double>(g.node_visits()) / (3.0 * blocks);
}

TEST(RewriteScaling, NodeVisitsGrowLinearlyWithTheGraph) {
  for (QuantFormat format : {QuantFormat::kQOperator, QuantFormat::kQdq}) {
    const double small = VisitsPerNode(1000 / 3, format);
    const double large = VisitsPerNode(20000 / 3, format);
    // Linear: the same visits per node at both sizes (a linear scan per query would make the large
    // graph's count per node 20 times the small one's).
    RecordProperty("visits_per_node_" + std::to_string(static_cast<int>(format)), std::to_string(small) + " " + std::to_string(large));
    EXPECT_LT(large, 1.2 * small) << "visits per node: " << small << " at 1,000 nodes, " << large << " at 20,000";
    EXPECT_LT(large, 200.0);
  }
}

}  // namespace
}  // namespace ptq
