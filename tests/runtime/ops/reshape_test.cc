// Tests of Reshape: 0 copies a dimension, -1 is inferred, allowzero keeps 0, attribute form before opset 5.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

TEST(ReshapeOp, ZeroCopiesInputDimAndMinusOneIsInferred) {
  Tensor x = Tensor::FromVector<float>({2, 3, 4}, Iota(24));
  Tensor shape = Tensor::FromVector<int64_t>({3}, {0, -1, 2});
  std::vector<Tensor> y = RunOp("Reshape", 13, Attributes(), {x, shape});
  EXPECT_EQ(y[0].shape(), (Shape{2, 6, 2}));
  EXPECT_EQ(ToVector<float>(y[0]), Iota(24));
}

TEST(ReshapeOp, AllowZeroKeepsZeroAsADimension) {
  Tensor x(DataType::kFloat, {0, 3, 4});
  Attributes attrs;
  attrs.Set("allowzero", IntAttr(1));
  std::vector<Tensor> y = RunOp("Reshape", 14, attrs, {x, Tensor::FromVector<int64_t>({3}, {3, 4, 0})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 4, 0}));
}

TEST(ReshapeOp, WithoutAllowZeroZeroCopiesEvenAZeroDimension) {
  Tensor x(DataType::kFloat, {0, 3, 4});
  std::vector<Tensor> y = RunOp("Reshape", 14, Attributes(), {x, Tensor::FromVector<int64_t>({3}, {0, 4, 3})});
  EXPECT_EQ(y[0].shape(), (Shape{0, 4, 3}));
}

TEST(ReshapeOp, SharesTheInputBuffer) {
  Tensor x = Tensor::FromVector<float>({2, 3}, Iota(6));
  std::vector<Tensor> y = RunOp("Reshape", 13, Attributes(), {x, Tensor::FromVector<int64_t>({1}, {-1})});
  EXPECT_EQ(y[0].raw(), x.raw());
}

TEST(ReshapeOp, Opset1TakesShapeAttribute) {
  Attributes attrs;
  attrs.Set("shape", IntsAttr({3, -1}));
  std::vector<Tensor> y = RunOp("Reshape", 1, attrs, {Tensor::FromVector<float>({2, 3}, Iota(6))});
  EXPECT_EQ(y[0].shape(), (Shape{3, 2}));
}

TEST(ReshapeOp, RejectsTwoMinusOnesAndWrongCounts) {
  Tensor x = Tensor::FromVector<float>({2, 3}, Iota(6));
  EXPECT_THROW(RunOp("Reshape", 13, Attributes(), {x, Tensor::FromVector<int64_t>({2}, {-1, -1})}), Error);
  EXPECT_THROW(RunOp("Reshape", 13, Attributes(), {x, Tensor::FromVector<int64_t>({2}, {4, -1})}), Error);
  EXPECT_THROW(RunOp("Reshape", 13, Attributes(), {x, Tensor::FromVector<int64_t>({2}, {5, 1})}), Error);
}

}  // namespace
}  // namespace ptq
