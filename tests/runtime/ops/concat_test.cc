// Tests of Concat: negative axis, inner-axis interleaving, empty inputs.
#include <gtest/gtest.h>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

Attributes Axis(int64_t a) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(a));
  return attrs;
}

TEST(ConcatOp, NegativeAxisJoinsRows) {
  std::vector<Tensor> y = RunOp("Concat", 13, Axis(-1),
                                {Tensor::FromVector<int32_t>({2, 1}, {1, 2}), Tensor::FromVector<int32_t>({2, 2}, {3, 4, 5, 6})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{1, 3, 4, 2, 5, 6}));
}

TEST(ConcatOp, EmptyInputsContributeNothing) {
  std::vector<Tensor> y = RunOp("Concat", 13, Axis(0),
                                {Tensor(DataType::kFloat, {0, 2}), Tensor::FromVector<float>({1, 2}, {1, 2}),
                                 Tensor(DataType::kFloat, {0})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 2}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2}));
}

TEST(ConcatOp, RejectsMismatchedNonAxisDims) {
  EXPECT_THROW(RunOp("Concat", 13, Axis(0), {Tensor(DataType::kFloat, {1, 2}), Tensor(DataType::kFloat, {1, 3})}),
               Error);
}

}  // namespace
}  // namespace ptq
