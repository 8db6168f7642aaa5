// Tests of Split: sizes from an attribute (before 13), an input (13+), num_outputs with an uneven
// last part (18+), and equal parts.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

Tensor Iota(Shape shape) {
  Tensor t(DataType::kFloat, shape);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(SplitOp, NumOutputsGivesSmallerLastPart) {
  Attributes attrs;
  attrs.Set("num_outputs", IntAttr(3));
  attrs.Set("axis", IntAttr(-1));
  std::vector<Tensor> y = RunOp("Split", 18, attrs, {Iota({2, 7})}, 3);
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(y[1].shape(), (Shape{2, 3}));
  EXPECT_EQ(y[2].shape(), (Shape{2, 1}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 1, 2, 7, 8, 9}));
  EXPECT_EQ(ToVector<float>(y[1]), (std::vector<float>{3, 4, 5, 10, 11, 12}));
  EXPECT_EQ(ToVector<float>(y[2]), (std::vector<float>{6, 13}));
}

TEST(SplitOp, Opset13TakesSizesFromInput) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("Split", 13, attrs, {Iota({2, 5}), Tensor::FromVector<int64_t>({2}, {1, 4})}, 2);
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 5}));
  EXPECT_EQ(ToVector<float>(y[1]), (std::vector<float>{1, 2, 3, 4, 6, 7, 8, 9}));
}

TEST(SplitOp, Opset11TakesSizesFromAttribute) {
  Attributes attrs;
  attrs.Set("split", IntsAttr({2, 1}));
  std::vector<Tensor> y = RunOp("Split", 11, attrs, {Iota({3, 2})}, 2);
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 1, 2, 3}));
  EXPECT_EQ(ToVector<float>(y[1]), (std::vector<float>{4, 5}));
}

TEST(SplitOp, WithoutSizesSplitsEquallyAndRejectsUnevenDimension) {
  std::vector<Tensor> y = RunOp("Split", 13, Attributes(), {Iota({4})}, 2);
  EXPECT_EQ(ToVector<float>(y[1]), (std::vector<float>{2, 3}));
  EXPECT_THROW(RunOp("Split", 13, Attributes(), {Iota({5})}, 2), Error);
}

TEST(SplitOp, RejectsSizesThatDoNotSumToTheDimension) {
  EXPECT_THROW(RunOp("Split", 13, Attributes(), {Iota({5}), Tensor::FromVector<int64_t>({2}, {1, 2})}, 2), Error);
}

}  // namespace
}  // namespace ptq
