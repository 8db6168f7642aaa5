// Tests of the shape ops: Shape (start/end from opset 15), Size, Flatten, Identity, Dropout,
// ConstantOfShape, DepthToSpace and SpaceToDepth.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

TEST(ShapeOp, StartAndEndSliceTheDims) {
  Attributes attrs;
  attrs.Set("start", IntAttr(-3));
  attrs.Set("end", IntAttr(-1));
  std::vector<Tensor> y = RunOp("Shape", 15, attrs, {Tensor(DataType::kFloat, {2, 3, 4, 5})});
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{3, 4}));
  EXPECT_EQ(ToVector<int64_t>(RunOp("Shape", 1, Attributes(), {Tensor(DataType::kBool, {2, 3})})[0]),
            (std::vector<int64_t>{2, 3}));
}

TEST(SizeOp, CountsElements) {
  std::vector<Tensor> y = RunOp("Size", 13, Attributes(), {Tensor(DataType::kFloat16, {2, 3, 4})});
  EXPECT_EQ(y[0].shape(), Shape{});
  EXPECT_EQ(y[0].data<int64_t>()[0], 24);
}

TEST(FlattenOp, NegativeAxisAndAxisZero) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(-1));
  EXPECT_EQ(RunOp("Flatten", 13, attrs, {Tensor(DataType::kFloat, {2, 3, 4})})[0].shape(), (Shape{6, 4}));
  attrs.Set("axis", IntAttr(0));
  EXPECT_EQ(RunOp("Flatten", 13, attrs, {Tensor(DataType::kFloat, {2, 3, 4})})[0].shape(), (Shape{1, 24}));
}

TEST(DropoutOp, InferencePassesInputAndMaskIsTrue) {
  Tensor x = Tensor::FromVector<float>({3}, {1, 2, 3});
  std::vector<Tensor> y = RunOp("Dropout", 13, Attributes(), {x, Tensor::Scalar<float>(0.5f)}, 2);
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(y[1].dtype(), DataType::kBool);
  EXPECT_EQ(ToVector<bool>(y[1]), (std::vector<bool>{true, true, true}));
}

TEST(DropoutOp, TrainingModeIsAnError) {
  Tensor x = Tensor::FromVector<float>({3}, {1, 2, 3});
  EXPECT_THROW(RunOp("Dropout", 13, Attributes(), {x, Tensor::Scalar<float>(0.5f), Tensor::Scalar<bool>(true)}),
               Error);
}

TEST(ConstantOfShapeOp, DefaultsToFloatZeroAndUsesValueAttribute) {
  std::vector<Tensor> y = RunOp("ConstantOfShape", 9, Attributes(), {Tensor::FromVector<int64_t>({2}, {2, 3})});
  EXPECT_EQ(y[0].dtype(), DataType::kFloat);
  EXPECT_EQ(ToVector<float>(y[0]), std::vector<float>(6, 0.0f));
  Attributes attrs;
  AttributeValue v;
  v.kind = AttributeValue::Kind::kTensor;
  v.tensor = std::make_shared<Tensor>(Tensor::FromVector<int32_t>({1}, {7}));
  attrs.Set("value", v);
  y = RunOp("ConstantOfShape", 9, attrs, {Tensor::FromVector<int64_t>({1}, {3})});
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{7, 7, 7}));
}

// numpy reference: x = arange(16).reshape(1, 8, 1, 2), blocksize 2;
// DCR: x.reshape(1, 2, 2, 2, 1, 2).transpose(0, 3, 4, 1, 5, 2); CRD: x.reshape(1, 2, 2, 2, 1, 2).transpose(0, 1, 4, 2, 5, 3).
TEST(DepthToSpaceOp, DcrAndCrdOrders) {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  Tensor x = Tensor::FromVector<float>({1, 8, 1, 2}, v);
  Attributes attrs;
  attrs.Set("blocksize", IntAttr(2));
  std::vector<Tensor> y = RunOp("DepthToSpace", 13, attrs, {x});
  EXPECT_EQ(y[0].shape(), (Shape{1, 2, 2, 4}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 4, 1, 5, 8, 12, 9, 13, 2, 6, 3, 7, 10, 14, 11, 15}));
  attrs.Set("mode", StringAttr("CRD"));
  y = RunOp("DepthToSpace", 13, attrs, {x});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 2, 1, 3, 4, 6, 5, 7, 8, 10, 9, 11, 12, 14, 13, 15}));
  // SpaceToDepth undoes DCR DepthToSpace.
  Attributes s2d;
  s2d.Set("blocksize", IntAttr(2));
  EXPECT_EQ(ToVector<float>(RunOp("SpaceToDepth", 13, s2d, {RunOp("DepthToSpace", 13, s2d, {x})[0]})[0]), v);
}

}  // namespace
}  // namespace ptq
