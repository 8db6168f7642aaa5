// Tests of Concat: negative axis, inner-axis interleaving, empty inputs, large outputs on two threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <vector>

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

// Outputs of 1 MiB and more are shared between threads by outer index: the channels-last concatenation of the
// PP-OCR detector's neck (four inputs on the last axis), each element where the definition puts it.
TEST(ConcatOp, LargeOutputsOnTwoThreadsPutEveryElementInPlace) {
  const int saved = omp_get_max_threads();
  omp_set_num_threads(2);
  const int64_t positions = 3 * 37 * 41, widths[] = {24, 8, 24, 40};
  std::vector<Tensor> parts;
  for (int i = 0; i < 4; ++i) {
    Tensor t(DataType::kInt32, {3, 37, 41, widths[i]});
    for (int64_t e = 0; e < t.size(); ++e) t.data<int32_t>()[e] = static_cast<int32_t>(e * 4 + i);
    parts.push_back(t);
  }
  const Tensor y = RunOp("Concat", 13, Axis(3), parts)[0];
  omp_set_num_threads(saved);
  ASSERT_EQ(y.shape(), (Shape{3, 37, 41, 96}));
  ASSERT_GE(y.size() * 4, int64_t{1} << 20);
  int64_t bad = 0;
  for (int64_t p = 0; p < positions; ++p) {
    for (int64_t c = 0, i = 0, base = 0; c < 96; ++c) {
      if (c - base == widths[i]) base += widths[i++];
      const int32_t want = static_cast<int32_t>((p * widths[i] + c - base) * 4 + i);
      bad += y.data<int32_t>()[p * 96 + c] != want;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(ConcatOp, RejectsMismatchedNonAxisDims) {
  EXPECT_THROW(RunOp("Concat", 13, Axis(0), {Tensor(DataType::kFloat, {1, 2}), Tensor(DataType::kFloat, {1, 3})}),
               Error);
}

}  // namespace
}  // namespace ptq
