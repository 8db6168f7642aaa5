// Tests of If and Loop through whole models: subgraphs reading outer-scope tensors (graph inputs,
// initializers, tensors produced later in file order, through two levels of nesting), Loop with
// scan outputs and early exit through the condition, zero iterations, and errors that name the
// subgraph path.
#include <gtest/gtest.h>

#include <initializer_list>

#include "runtime/graph.h"
#include "runtime/session.h"
#include "tests/error_of.h"
#include "tests/runtime/model_builder.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::ModelBuilder;
using testing::ToVector;

// Builds a GraphProto for a graph attribute.
class SubgraphBuilder {
 public:
  SubgraphBuilder& Input(const std::string& name, DataType t) {
    Typed(g_.add_input(), name, t);
    return *this;
  }
  SubgraphBuilder& Output(const std::string& name, DataType t) {
    Typed(g_.add_output(), name, t);
    return *this;
  }
  SubgraphBuilder& Initializer(const std::string& name, const Tensor& value) {
    TensorToProto(value, name, g_.add_initializer());
    return *this;
  }
  onnx::NodeProto& Node(const std::string& op, std::initializer_list<std::string> inputs,
                        std::initializer_list<std::string> outputs, const std::string& name = "") {
    onnx::NodeProto* n = g_.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const auto& i : inputs) n->add_input(i);
    for (const auto& o : outputs) n->add_output(o);
    return *n;
  }
  const onnx::GraphProto& proto() const { return g_; }

 private:
  static void Typed(onnx::ValueInfoProto* vi, const std::string& name, DataType t) {
    vi->set_name(name);
    vi->mutable_type()->mutable_tensor_type()->set_elem_type(static_cast<int32_t>(t));
  }
  onnx::GraphProto g_;
};

void SetGraph(onnx::NodeProto& n, const std::string& attr, const SubgraphBuilder& g) {
  onnx::AttributeProto* a = n.add_attribute();
  a->set_name(attr);
  a->set_type(onnx::AttributeProto::GRAPH);
  *a->mutable_g() = g.proto();
}

std::shared_ptr<const Graph> ToGraph(ModelBuilder& b) {
  return std::make_shared<const Graph>(GraphFromModel(b.model(), "", "test.onnx"));
}

// y = cond ? -(x + x) : x * k, where x + x is computed by a node listed after the If (the If must be
// ordered after it) and k is an initializer of the main graph.
ModelBuilder IfModel() {
  ModelBuilder b(13);
  b.Input("cond", DataType::kBool, {}).Input("x", DataType::kFloat, {2}).Output("y", DataType::kFloat);
  b.Initializer("k", Tensor::FromVector<float>({2}, {10, 100}));
  SubgraphBuilder then_b, else_b;
  then_b.Node("Neg", {"x2"}, {"t"}, "neg");
  then_b.Output("t", DataType::kFloat);
  else_b.Node("Mul", {"x", "k"}, {"e"}, "mul");
  else_b.Output("e", DataType::kFloat);
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if");
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  b.Node("Add", {"x", "x"}, {"x2"}, "double");
  return b;
}

TEST(IfOp, BranchesReadOuterScopeTensors) {
  ModelBuilder b = IfModel();
  auto graph = ToGraph(b);
  // In the order of the node's attributes: then_branch reads x2, else_branch x and k.
  EXPECT_EQ(graph->nodes[0].implicit_inputs, (std::vector<std::string>{"x2", "x", "k"}));
  Session s(graph);
  const Tensor x = Tensor::FromVector<float>({2}, {1, 2});
  EXPECT_EQ(ToVector<float>(s.Run({{"cond", Tensor::Scalar<bool>(true)}, {"x", x}})[0]), (std::vector<float>{-2, -4}));
  EXPECT_EQ(ToVector<float>(s.Run({{"cond", Tensor::Scalar<bool>(false)}, {"x", x}})[0]),
            (std::vector<float>{10, 200}));
  EXPECT_NE(ErrorOf([&] { s.Run({{"cond", Tensor::FromVector<bool>({2}, {true, false})}, {"x", x}}); }), "");
}

// A bool tensor read from a model may hold any byte; every non-zero byte counts as true.
TEST(IfOp, AnyNonZeroConditionByteIsTrue) {
  ModelBuilder b = IfModel();
  Session s(ToGraph(b));
  Tensor cond(DataType::kBool, {});
  static_cast<uint8_t*>(cond.raw())[0] = 2;
  EXPECT_EQ(ToVector<float>(s.Run({{"cond", cond}, {"x", Tensor::FromVector<float>({2}, {1, 2})}})[0]),
            (std::vector<float>{-2, -4}));
}

TEST(IfOp, BranchOutputCountMustMatchTheNode) {
  ModelBuilder b(13);
  b.Input("cond", DataType::kBool, {}).Output("y", DataType::kFloat);
  b.Initializer("c", Tensor::Scalar<float>(1));
  SubgraphBuilder one, two;
  one.Output("c", DataType::kFloat);
  two.Output("c", DataType::kFloat).Output("c2", DataType::kFloat);
  two.Node("Identity", {"c"}, {"c2"});
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if");
  SetGraph(n, "then_branch", one);
  SetGraph(n, "else_branch", two);
  EXPECT_NE(ErrorOf([&] { Session s(ToGraph(b)); }).find("node 'if' (If): attribute 'else_branch' has 2 outputs"),
            std::string::npos);
}

// Loop(M, cond = true, v = 0): v += step (an initializer); cond = v < limit (a graph input); scan
// outputs v and step (a body output that names an outer tensor directly).
ModelBuilder CountingLoop() {
  ModelBuilder b(13);
  b.Input("M", DataType::kInt64, {}).Input("limit", DataType::kFloat, {});
  b.Output("v_final", DataType::kFloat).Output("scan_v", DataType::kFloat).Output("scan_step", DataType::kFloat);
  b.Initializer("step", Tensor::Scalar<float>(1.5f)).Initializer("true", Tensor::Scalar<bool>(true));
  b.Initializer("v0", Tensor::Scalar<float>(0));
  SubgraphBuilder body;
  body.Input("i", DataType::kInt64).Input("c_in", DataType::kBool).Input("v_in", DataType::kFloat);
  body.Node("Add", {"v_in", "step"}, {"v_out"}, "add");
  body.Node("Less", {"v_out", "limit"}, {"c_out"}, "less");
  body.Node("Identity", {"v_out"}, {"scan"}, "copy");
  body.Output("c_out", DataType::kBool).Output("v_out", DataType::kFloat).Output("scan", DataType::kFloat);
  body.Output("step", DataType::kFloat);
  SetGraph(b.Node("Loop", {"M", "true", "v0"}, {"v_final", "scan_v", "scan_step"}, "loop"), "body", body);
  return b;
}

TEST(LoopOp, ScanOutputsAndEarlyExitThroughTheCondition) {
  ModelBuilder b = CountingLoop();
  Session s(ToGraph(b));
  // limit 4: v = 1.5 (go on), 3 (go on), 4.5 (stop) -> three iterations though M = 10.
  const auto out = s.Run({{"M", Tensor::Scalar<int64_t>(10)}, {"limit", Tensor::Scalar<float>(4)}});
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{4.5f}));
  EXPECT_EQ(out[1].shape(), (Shape{3}));
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{1.5f, 3, 4.5f}));
  EXPECT_EQ(ToVector<float>(out[2]), (std::vector<float>{1.5f, 1.5f, 1.5f}));
  // The trip count stops it first.
  const auto capped = s.Run({{"M", Tensor::Scalar<int64_t>(2)}, {"limit", Tensor::Scalar<float>(100)}});
  EXPECT_EQ(ToVector<float>(capped[1]), (std::vector<float>{1.5f, 3}));
}

TEST(LoopOp, ZeroIterationsGiveInitialValuesAndEmptyScans) {
  ModelBuilder b = CountingLoop();
  Session s(ToGraph(b));
  const auto out = s.Run({{"M", Tensor::Scalar<int64_t>(0)}, {"limit", Tensor::Scalar<float>(4)}});
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{0}));
  EXPECT_EQ(out[1].shape(), (Shape{0}));
  EXPECT_EQ(out[1].dtype(), DataType::kFloat);
}

// A Loop whose body holds an If that reads a tensor of the main graph: the name is a capture of the
// If's branch, an implicit input of the If, a capture of the body and an implicit input of the Loop.
TEST(LoopOp, NestedSubgraphReadsTheMainGraph) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {}).Output("acc", DataType::kFloat).Output("picked", DataType::kFloat);
  b.Initializer("M", Tensor::Scalar<int64_t>(4)).Initializer("zero", Tensor::Scalar<float>(0));
  b.Initializer("two", Tensor::Scalar<int64_t>(2));
  SubgraphBuilder then_b, else_b, body;
  then_b.Node("Neg", {"x"}, {"neg_x"});
  then_b.Output("neg_x", DataType::kFloat);
  else_b.Output("x", DataType::kFloat);
  body.Input("i", DataType::kInt64).Input("c", DataType::kBool).Input("acc_in", DataType::kFloat);
  body.Node("Less", {"i", "two"}, {"small"});
  onnx::NodeProto& inner = body.Node("If", {"small"}, {"term"}, "pick");
  SetGraph(inner, "then_branch", then_b);
  SetGraph(inner, "else_branch", else_b);
  body.Node("Add", {"acc_in", "term"}, {"acc_out"});
  body.Node("Identity", {"c"}, {"c_out"});
  body.Output("c_out", DataType::kBool).Output("acc_out", DataType::kFloat).Output("term", DataType::kFloat);
  SetGraph(b.Node("Loop", {"M", "", "zero"}, {"acc", "picked"}, "loop"), "body", body);
  auto graph = ToGraph(b);
  EXPECT_EQ(graph->nodes[0].implicit_inputs, (std::vector<std::string>{"two", "x"}));
  Session s(graph);
  const auto out = s.Run({{"x", Tensor::Scalar<float>(3)}});
  EXPECT_EQ(ToVector<float>(out[0]), (std::vector<float>{0}));  // -3 - 3 + 3 + 3
  EXPECT_EQ(ToVector<float>(out[1]), (std::vector<float>{-3, -3, 3, 3}));
}

TEST(LoopOp, ScanOutputsMustKeepOneShape) {
  ModelBuilder b(13);
  b.Output("v", DataType::kInt64).Output("scan", DataType::kInt64);
  b.Initializer("M", Tensor::Scalar<int64_t>(3)).Initializer("v0", Tensor::FromVector<int64_t>({1}, {7}));
  b.Initializer("seven", Tensor::FromVector<int64_t>({1}, {7}));
  SubgraphBuilder body;
  body.Input("i", DataType::kInt64).Input("c", DataType::kBool).Input("v_in", DataType::kInt64);
  onnx::AttributeProto* axis = body.Node("Concat", {"v_in", "seven"}, {"v_out"}).add_attribute();
  axis->set_name("axis");
  axis->set_type(onnx::AttributeProto::INT);
  axis->set_i(0);
  body.Output("c", DataType::kBool).Output("v_out", DataType::kInt64).Output("v_out", DataType::kInt64);
  SetGraph(b.Node("Loop", {"M", "", "v0"}, {"v", "scan"}, "grow"), "body", body);
  Session s(ToGraph(b));
  EXPECT_NE(ErrorOf([&] { s.Run({}); }).find("node 'grow' (Loop): scan output 0 is int64 [3] in iteration 1"),
            std::string::npos);
}

TEST(LoopOp, BodyInputCountIsChecked) {
  ModelBuilder b(13);
  b.Output("v", DataType::kFloat);
  b.Initializer("v0", Tensor::Scalar<float>(0));
  SubgraphBuilder body;
  body.Input("i", DataType::kInt64).Input("v_in", DataType::kFloat);
  body.Output("v_in", DataType::kFloat);
  SetGraph(b.Node("Loop", {"", "", "v0"}, {"v"}, "loop"), "body", body);
  EXPECT_NE(ErrorOf([&] { Session s(ToGraph(b)); }).find("attribute 'body' has 2 inputs"), std::string::npos);
}

TEST(Subgraphs, ErrorsNameTheSubgraphPath) {
  ModelBuilder b(13);
  b.Input("cond", DataType::kBool, {}).Output("y", DataType::kFloat);
  b.Initializer("data", Tensor::FromVector<float>({2}, {1, 2})).Initializer("idx", Tensor::Scalar<int64_t>(5));
  SubgraphBuilder then_b, else_b;
  then_b.Node("Gather", {"data", "idx"}, {"g"}, "gather");
  then_b.Output("g", DataType::kFloat);
  else_b.Output("data", DataType::kFloat);
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if");
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  Session s(ToGraph(b));
  EXPECT_NE(ErrorOf([&] {
              s.Run({{"cond", Tensor::Scalar<bool>(true)}});
            }).find("test.onnx: node 'if' (If): subgraph 'then_branch': node 'gather' (Gather): "),
            std::string::npos);
}

TEST(Subgraphs, UnsupportedOpsAndMissingOuterTensorsAreFound) {
  ModelBuilder b(13);
  b.Input("cond", DataType::kBool, {}).Output("y", DataType::kFloat);
  SubgraphBuilder then_b, else_b;
  then_b.Node("NoSuchOp", {"nowhere"}, {"t"}, "odd");
  then_b.Output("t", DataType::kFloat);
  else_b.Node("Identity", {"nowhere"}, {"e"});
  else_b.Output("e", DataType::kFloat);
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if");
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  auto graph = ToGraph(b);
  const auto unsupported = FindUnsupportedOps(*graph);
  ASSERT_EQ(unsupported.size(), 1u);
  EXPECT_EQ(unsupported[0].nodes, (std::vector<std::string>{"if/then_branch/odd"}));
  EXPECT_NE(ErrorOf([&] { Session s(graph); }).find("NoSuchOp"), std::string::npos);
  // With the op known, the tensor that no scope defines is named.
  then_b = SubgraphBuilder();
  then_b.Node("Identity", {"nowhere"}, {"t"});
  then_b.Output("t", DataType::kFloat);
  n.clear_attribute();
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  EXPECT_NE(ErrorOf([&] { Session s(ToGraph(b)); }).find("reads tensor 'nowhere' in a subgraph"), std::string::npos);
}

TEST(Subgraphs, ConstantNodesInsideAreFoldedAndTensorsProducedTwiceRefused) {
  ModelBuilder b(13);
  b.Input("cond", DataType::kBool, {}).Output("y", DataType::kFloat);
  SubgraphBuilder then_b, else_b;
  onnx::NodeProto& c = then_b.Node("Constant", {}, {"t"});
  onnx::AttributeProto* v = c.add_attribute();
  v->set_name("value_float");
  v->set_type(onnx::AttributeProto::FLOAT);
  v->set_f(2.5f);
  then_b.Output("t", DataType::kFloat);
  else_b.Node("Neg", {"t2"}, {"e"});
  else_b.Node("Neg", {"t2"}, {"e"});
  else_b.Output("e", DataType::kFloat);
  onnx::NodeProto& n = b.Node("If", {"cond"}, {"y"}, "if");
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  EXPECT_NE(ErrorOf([&] { ToGraph(b); })
                .find("node 'if' (If) attribute 'else_branch': node 'Neg_1' (Neg): tensor 'e' is "
                      "produced twice"),
            std::string::npos);
  else_b = SubgraphBuilder();
  else_b.Output("t9", DataType::kFloat);
  b.Initializer("t9", Tensor::Scalar<float>(9));
  n.clear_attribute();
  SetGraph(n, "then_branch", then_b);
  SetGraph(n, "else_branch", else_b);
  auto graph = ToGraph(b);
  const Graph& then_graph = *graph->nodes[0].attrs.GetGraph("then_branch");
  EXPECT_TRUE(then_graph.nodes.empty());
  EXPECT_EQ(then_graph.constants.count("t"), 1u);
  Session s(graph);
  EXPECT_EQ(ToVector<float>(s.Run({{"cond", Tensor::Scalar<bool>(true)}})[0]), (std::vector<float>{2.5f}));
  EXPECT_EQ(ToVector<float>(s.Run({{"cond", Tensor::Scalar<bool>(false)}})[0]), (std::vector<float>{9}));
}

}  // namespace
}  // namespace ptq
