// CheckInputModel: models ONNX's checker refuses and convolution/pooling ranks libonnx's shape inference
// would crash on are input errors naming the node, before the rewrite reads a node.
#include <gtest/gtest.h>

#include <string>

#include "rewrite/check_input_model.h"
#include "runtime/error.h"
#include "tests/runtime/model_builder.h"

namespace ptq {
namespace {

using testing::ModelBuilder;

Tensor Zeros(const Shape& shape) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = 0.0f;
  return t;
}

void SetInts(onnx::NodeProto* n, const std::string& name, std::initializer_list<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

// The message of the input error CheckInputModel throws, or "" (and a test failure) when it does not.
std::string InputError(const onnx::ModelProto& m, const QuantTable& table = {}) {
  try {
    CheckInputModel(m, ".", table);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "CheckInputModel accepted the model";
  return "";
}

TEST(CheckInputModel, AcceptsAValidConvAndPool) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {-1, 3, 8, 8}).Initializer("w", Zeros({4, 3, 3, 3}));
  b.Node("Conv", {"x", "w"}, {"c"}, "conv");
  SetInts(&b.Node("MaxPool", {"c"}, {"y"}, "pool"), "kernel_shape", {2, 2});
  b.Output("y", DataType::kFloat, {-1, 4, 5, 5});
  EXPECT_NO_THROW(CheckInputModel(b.model(), ".", {}));
}

TEST(CheckInputModel, ConvInputRankDifferentFromWeightRank) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1, 3, 8}).Initializer("w", Zeros({4, 3, 3, 3}));
  b.Node("Conv", {"x", "w"}, {"y"}, "conv/1");
  b.Output("y", DataType::kFloat, {1, 4, 6});
  EXPECT_NE(InputError(b.model()).find("node 'conv/1' (Conv): its input 'x' has rank 3 but its weight 'w' has rank 4"),
            std::string::npos);
}

TEST(CheckInputModel, ConvInputBelowRankThree) {
  // The fuzz reproducer's shape: a [1, 5] input with a rank-4 weight.
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1, 5}).Initializer("w", Zeros({4, 3, 3, 3}));
  b.Node("Conv", {"x", "w"}, {"y"}, "conv");
  b.Output("y", DataType::kFloat, {1, 4});
  EXPECT_NE(InputError(b.model()).find("node 'conv' (Conv): its input 'x' has rank 2;"), std::string::npos);
}

TEST(CheckInputModel, RankObservedByCalibrationIsChecked) {
  // The Conv reads a Relu output the model does not describe (no value_info); calibration observed it as
  // rank 3.
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1, 3, 8}).Initializer("w", Zeros({4, 3, 3, 3}));
  b.Node("Relu", {"x"}, {"r"}, "relu");
  b.Node("Conv", {"r", "w"}, {"y"}, "conv");
  b.Output("y", DataType::kFloat, {1, 4, 6});
  QuantTable table;
  table.tensors["r"].shape = {1, 3, 8};
  EXPECT_NE(InputError(b.model(), table).find("its input 'r' has rank 3 but its weight 'w' has rank 4"),
            std::string::npos);
  // Without the observation nothing states r's rank: accepted.
  EXPECT_NO_THROW(CheckInputModel(b.model(), ".", {}));
}

TEST(CheckInputModel, WeightInAConstantNodeIsChecked) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1, 3, 8, 8});
  auto& c = b.Node("Constant", {}, {"w"}, "weight");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(onnx::AttributeProto::TENSOR);
  TensorToProto(Zeros({4, 3, 3}), "", a->mutable_t());
  b.Node("Conv", {"x", "w"}, {"y"}, "conv");
  b.Output("y", DataType::kFloat, {1, 4, 6, 6});
  EXPECT_NE(InputError(b.model()).find("has rank 4 but its weight 'w' has rank 3"), std::string::npos);
}

TEST(CheckInputModel, PoolKernelShapeLongerThanTheSpatialAxes) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {1, 3, 8});
  SetInts(&b.Node("AveragePool", {"x"}, {"y"}, "pool"), "kernel_shape", {2, 2});
  b.Output("y", DataType::kFloat, {1, 3, 4});
  EXPECT_NE(InputError(b.model()).find("node 'pool' (AveragePool): kernel_shape has 2 values but its input 'x' has 1 "
                                       "spatial axes"),
            std::string::npos);
}

TEST(CheckInputModel, NodeWithTooFewInputsFailsTheChecker) {
  // The other fuzz reproducer: a MatMul with one input (the rewrite would read its input 1).
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {2, 2});
  b.Node("MatMul", {"x"}, {"y"}, "mm");
  b.Output("y", DataType::kFloat, {2, 2});
  const std::string e = InputError(b.model());
  EXPECT_NE(e.find("the float model is not valid ONNX (onnx::checker, ONNX 1.12): "), std::string::npos) << e;
  EXPECT_NE(e.find("mm"), std::string::npos) << e;
}

TEST(CheckInputModel, NodesOutOfTopologicalOrderAreAccepted) {
  // The runtime and the rewrite's output sort nodes; ONNX's checker alone would refuse this order.
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {2, 2});
  b.Node("Sigmoid", {"r"}, {"y"}, "second");
  b.Node("Relu", {"x"}, {"r"}, "first");
  b.Output("y", DataType::kFloat, {2, 2});
  EXPECT_NO_THROW(CheckInputModel(b.model(), ".", {}));
}

TEST(CheckInputModel, NodesInACycleAreAnInputError) {
  ModelBuilder b;
  b.Input("x", DataType::kFloat, {2, 2});
  b.Node("Add", {"x", "b"}, {"a"}, "one");
  b.Node("Relu", {"a"}, {"b"}, "two");
  b.Output("b", DataType::kFloat, {2, 2});
  EXPECT_NE(InputError(b.model()).find("the float model's nodes form a cycle"), std::string::npos);
}

}  // namespace
}  // namespace ptq
