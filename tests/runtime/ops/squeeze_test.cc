// Tests of Squeeze and Unsqueeze: axes as attribute (before 13) or input (13+), negative axes.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntsAttr;
using testing::RunOp;

TEST(SqueezeOp, Opset11TakesAxesAttribute) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({-1}));
  std::vector<Tensor> y = RunOp("Squeeze", 11, attrs, {Tensor(DataType::kFloat, {1, 3, 1})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3}));
}

TEST(SqueezeOp, Opset13TakesAxesInput) {
  std::vector<Tensor> y = RunOp("Squeeze", 13, Attributes(),
                                {Tensor(DataType::kFloat, {1, 3, 1}), Tensor::FromVector<int64_t>({1}, {0})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 1}));
}

TEST(SqueezeOp, WithoutAxesRemovesAllOnes) {
  EXPECT_EQ(RunOp("Squeeze", 11, Attributes(), {Tensor(DataType::kFloat, {1, 3, 1})})[0].shape(), (Shape{3}));
  EXPECT_EQ(RunOp("Squeeze", 13, Attributes(), {Tensor(DataType::kFloat, {1, 3, 1})})[0].shape(), (Shape{3}));
}

TEST(SqueezeOp, RejectsAxisThatIsNotOne) {
  EXPECT_THROW(RunOp("Squeeze", 13, Attributes(),
                     {Tensor(DataType::kFloat, {1, 3}), Tensor::FromVector<int64_t>({1}, {1})}),
               Error);
}

TEST(UnsqueezeOp, NegativeAxesCountFromTheOutputEnd) {
  std::vector<Tensor> y = RunOp("Unsqueeze", 13, Attributes(),
                                {Tensor(DataType::kFloat, {3, 4}), Tensor::FromVector<int64_t>({2}, {-1, 0})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3, 4, 1}));
  y = RunOp("Unsqueeze", 13, Attributes(), {Tensor(DataType::kFloat, {3, 4}), Tensor::FromVector<int64_t>({1}, {-2})});
  EXPECT_EQ(y[0].shape(), (Shape{3, 1, 4}));
}

TEST(UnsqueezeOp, Opset11TakesAxesAttributeAndSharesBuffer) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({1, 3}));
  Tensor x(DataType::kInt8, {2, 5});
  std::vector<Tensor> y = RunOp("Unsqueeze", 11, attrs, {x});
  EXPECT_EQ(y[0].shape(), (Shape{2, 1, 5, 1}));
  EXPECT_EQ(y[0].raw(), x.raw());
}

TEST(UnsqueezeOp, RejectsDuplicateAxes) {
  EXPECT_THROW(RunOp("Unsqueeze", 13, Attributes(),
                     {Tensor(DataType::kFloat, {3}), Tensor::FromVector<int64_t>({2}, {0, -3})}),
               Error);
}

}  // namespace
}  // namespace ptq
