// Tests of the interpreter: ordering, missing producers, cycles, unsupported ops, feed checks,
// observers, freeing, and model loading errors (external data, declared sizes).
#include "runtime/session.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "runtime/error.h"
#include "runtime/graph.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

namespace fs = std::filesystem;
using testing::ModelBuilder;

std::shared_ptr<const Graph> ToGraph(ModelBuilder& b, const std::string& dir = "") {
  return std::make_shared<const Graph>(GraphFromModel(b.model(), dir, "test.onnx"));
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// x -> QuantizeLinear -> DequantizeLinear -> y, with nodes listed in reverse order.
ModelBuilder QdqModel() {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {-1, 3}).Output("y", DataType::kFloat);
  b.Initializer("s", Tensor::Scalar<float>(0.5f)).Initializer("zp", Tensor::Scalar<uint8_t>(10));
  b.Node("DequantizeLinear", {"q", "s", "zp"}, {"y"}, "dq");
  b.Node("QuantizeLinear", {"x", "s", "zp"}, {"q"}, "q");
  return b;
}

TEST(Session, RunsNodesInTopologicalOrderWithDynamicBatch) {
  ModelBuilder b = QdqModel();
  Session s(ToGraph(b));
  for (int64_t batch : {1, 4}) {
    std::vector<float> x(static_cast<size_t>(batch * 3));
    for (size_t i = 0; i < x.size(); ++i) x[i] = 0.26f * static_cast<float>(i) - 1.0f;
    const auto out = s.Run({{"x", Tensor::FromVector<float>({batch, 3}, x)}});
    ASSERT_EQ(out.size(), 1u);
    ASSERT_EQ(out[0].shape(), (Shape{batch, 3}));
    for (size_t i = 0; i < x.size(); ++i) {
      // round(x / 0.5) * 0.5 with ties to even
      EXPECT_FLOAT_EQ(out[0].data<float>()[i], std::nearbyint(x[i] / 0.5f) * 0.5f) << i;
    }
  }
}

TEST(Session, ObserverSeesInputsAndEveryNodeOutput) {
  ModelBuilder b = QdqModel();
  Session s(ToGraph(b));
  std::vector<std::string> seen;
  s.Run({{"x", Tensor::FromVector<float>({1, 3}, {1, 2, 3})}},
        [&](const Observation& o) { seen.push_back(o.name + (o.node ? ":" + o.node->name : "")); });
  EXPECT_EQ(seen, (std::vector<std::string>{"x", "q:q", "y:dq"}));
}

TEST(Session, MissingProducerIsNamed) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3}).Output("y", DataType::kFloat);
  b.Node("QuantizeLinear", {"x", "nowhere"}, {"y"}, "quant");
  const std::string err = ErrorOf([&] { Session s(ToGraph(b)); });
  EXPECT_NE(err.find("'nowhere'"), std::string::npos) << err;
  EXPECT_NE(err.find("'quant'"), std::string::npos) << err;
}

TEST(Session, CycleIsAnErrorNamingANode) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3}).Output("y", DataType::kFloat);
  b.Initializer("s", Tensor::Scalar<float>(1.0f));
  b.Node("QuantizeLinear", {"a", "s"}, {"b"}, "n1");
  b.Node("DequantizeLinear", {"b", "s"}, {"a"}, "n2");
  b.Node("QuantizeLinear", {"x", "s"}, {"y"}, "n3");
  const std::string err = ErrorOf([&] { Session s(ToGraph(b)); });
  EXPECT_NE(err.find("cycle"), std::string::npos) << err;
}

TEST(Session, UnsupportedOpsAreAllListedWithTheirNodes) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3}).Output("y", DataType::kFloat);
  b.Node("FancyOp", {"x"}, {"a"}, "fancy1");
  b.Node("OtherOp", {"a"}, {"b"}, "other");
  b.Node("FancyOp", {"b"}, {"y"}, "fancy2");
  const auto graph = ToGraph(b);
  const auto unsupported = FindUnsupportedOps(*graph);
  ASSERT_EQ(unsupported.size(), 2u);
  EXPECT_EQ(unsupported[0].nodes, (std::vector<std::string>{"fancy1", "fancy2"}));
  const std::string err = ErrorOf([&] { Session s(graph); });
  for (const char* part : {"FancyOp", "OtherOp", "fancy1", "fancy2", "other"}) {
    EXPECT_NE(err.find(part), std::string::npos) << part << " missing from: " << err;
  }
}

TEST(Session, FeedsAreCheckedByNameTypeAndShape) {
  ModelBuilder b = QdqModel();
  Session s(ToGraph(b));
  std::string err = ErrorOf([&] { s.Run({}); });
  EXPECT_NE(err.find("input 'x'"), std::string::npos) << err;
  err = ErrorOf([&] { s.Run({{"x", Tensor::FromVector<double>({1, 3}, {1, 2, 3})}}); });
  EXPECT_NE(err.find("expects float32, got float64"), std::string::npos) << err;
  err = ErrorOf([&] { s.Run({{"x", Tensor::FromVector<float>({1, 4}, {1, 2, 3, 4})}}); });
  EXPECT_NE(err.find("expects shape [N, 3], got [1, 4]"), std::string::npos) << err;
  err = ErrorOf([&] { s.Run({{"x", Tensor::FromVector<float>({1, 3}, {1, 2, 3})}, {"z", Tensor()}}); });
  EXPECT_NE(err.find("'z' is not an input"), std::string::npos) << err;
}

TEST(Session, KernelErrorsNameTheNode) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2}).Output("y", DataType::kUint8);
  b.Initializer("s", Tensor::FromVector<float>({3}, {1, 1, 1}));  // per-axis scale of the wrong length
  b.Node("QuantizeLinear", {"x", "s"}, {"y"}, "bad_quant");
  Session s(ToGraph(b));
  const std::string err = ErrorOf([&] { s.Run({{"x", Tensor::FromVector<float>({2}, {1, 2})}}); });
  EXPECT_NE(err.find("node 'bad_quant' (QuantizeLinear)"), std::string::npos) << err;
}

TEST(Session, ConstantNodesAreFolded) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {2}).Output("y", DataType::kUint8);
  auto& c = b.Node("Constant", {}, {"s"}, "const");
  auto* attr = c.add_attribute();
  attr->set_name("value_float");
  attr->set_type(onnx::AttributeProto::FLOAT);
  attr->set_f(0.5f);
  b.Node("QuantizeLinear", {"x", "s"}, {"y"}, "q");
  const auto graph = ToGraph(b);
  EXPECT_EQ(graph->nodes.size(), 1u);
  Session s(graph);
  const auto out = s.Run({{"x", Tensor::FromVector<float>({2}, {1.0f, 1.25f})}});
  EXPECT_EQ(out[0].data<uint8_t>()[0], 2);
  EXPECT_EQ(out[0].data<uint8_t>()[1], 2);  // 2.5 -> 2
}

class ExternalDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ptq_ext_" + std::to_string(::getpid()));
    fs::create_directories(dir_ / "model");
    const float values[3] = {1.0f, 2.0f, 3.0f};
    std::ofstream(dir_ / "model" / "weights.bin", std::ios::binary).write(reinterpret_cast<const char*>(values), 12);
    std::ofstream(dir_ / "secret.bin", std::ios::binary).write(reinterpret_cast<const char*>(values), 12);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string LoadWithLocation(const std::string& location, int64_t dim = 3) {
    ModelBuilder b(13);
    b.Input("x", DataType::kFloat, {3}).Output("w", DataType::kFloat);
    auto* init = b.model().mutable_graph()->add_initializer();
    init->set_name("w");
    init->set_data_type(onnx::TensorProto::FLOAT);
    init->add_dims(dim);
    init->set_data_location(onnx::TensorProto::EXTERNAL);
    auto* kv = init->add_external_data();
    kv->set_key("location");
    kv->set_value(location);
    return ErrorOf([&] {
      Graph g = GraphFromModel(b.model(), (dir_ / "model").string(), "m.onnx");
      loaded_ = g.constants.at("w");
    });
  }
  fs::path dir_;
  Tensor loaded_;
};

TEST_F(ExternalDataTest, LoadsDataInsideTheModelFolder) {
  EXPECT_EQ(LoadWithLocation("weights.bin"), "");
  ASSERT_EQ(loaded_.size(), 3);
  EXPECT_EQ(loaded_.data<float>()[2], 3.0f);
}

TEST_F(ExternalDataTest, RefusesPathsLeavingTheModelFolder) {
  for (const std::string loc : {"../secret.bin", "/etc/passwd", "sub/../../secret.bin"}) {
    const std::string err = LoadWithLocation(loc);
    EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << loc << ": " << err;
    EXPECT_TRUE(err.find("model's folder") != std::string::npos) << loc << ": " << err;
  }
  fs::create_symlink(dir_ / "secret.bin", dir_ / "model" / "link.bin");
  const std::string err = LoadWithLocation("link.bin");
  EXPECT_NE(err.find("outside the model's folder"), std::string::npos) << err;
}

TEST_F(ExternalDataTest, RefusesDataShorterThanTheDeclaredShape) {
  const std::string err = LoadWithLocation("weights.bin", 4);
  EXPECT_NE(err.find("has 12 bytes; need 16"), std::string::npos) << err;
}

TEST(GraphLoading, DeclaredSizeBeyondMemoryIsAnErrorNotAnAllocation) {
  ModelBuilder b(13);
  b.Output("w", DataType::kFloat);
  auto* init = b.model().mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(int64_t{1} << 40);
  init->add_dims(int64_t{1} << 20);
  const std::string err = ErrorOf([&] { GraphFromModel(b.model(), "", "huge.onnx"); });
  EXPECT_NE(err.find("initializer 'w'"), std::string::npos) << err;
  // Claims 2^40 elements with no data: refused by the data-size check before allocating.
  auto* init2 = b.model().mutable_graph()->mutable_initializer(0);
  init2->clear_dims();
  init2->add_dims(int64_t{1} << 40);
  const std::string err2 = ErrorOf([&] { GraphFromModel(b.model(), "", "huge.onnx"); });
  EXPECT_NE(err2.find("float_data has 0 values"), std::string::npos) << err2;
}

TEST(GraphLoading, RawDataOfWrongSizeIsNamed) {
  ModelBuilder b(13);
  b.Output("w", DataType::kFloat);
  auto* init = b.model().mutable_graph()->add_initializer();
  init->set_name("w");
  init->set_data_type(onnx::TensorProto::FLOAT);
  init->add_dims(4);
  init->set_raw_data(std::string(15, '\0'));
  const std::string err = ErrorOf([&] { GraphFromModel(b.model(), "", "m.onnx"); });
  EXPECT_NE(err.find("raw_data has 15 bytes"), std::string::npos) << err;
}

TEST(GraphLoading, TensorProducedTwiceIsAnError) {
  ModelBuilder b(13);
  b.Input("x", DataType::kFloat, {3}).Output("y", DataType::kFloat);
  b.Node("Identity", {"x"}, {"y"}, "a");
  b.Node("Identity", {"x"}, {"y"}, "b");
  const std::string err = ErrorOf([&] { GraphFromModel(b.model(), "", "m.onnx"); });
  EXPECT_NE(err.find("'y' is produced twice"), std::string::npos) << err;
}

}  // namespace
}  // namespace ptq
