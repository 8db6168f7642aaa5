// Tests of NonMaxSuppression (score ties, NaN scores, center boxes, the IoU threshold's range, no
// output budget) and Unique (unsorted order, slices along an axis, NaN grouping).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

const float kNaN = std::numeric_limits<float>::quiet_NaN();

// Three boxes: 0 and 1 overlap with IoU 0.6, 2 is apart. Scores 0.9, 0.9 (tie), NaN.
std::vector<Tensor> NmsInputs(float score2, float iou) {
  return {Tensor::FromVector<float>({1, 3, 4}, {0, 0, 1, 1, 0, 0.25f, 1, 1.25f, 5, 5, 6, 6}),
          Tensor::FromVector<float>({1, 1, 3}, {0.9f, 0.9f, score2}), Tensor::Scalar<int64_t>(10),
          Tensor::Scalar<float>(iou)};
}

TEST(NonMaxSuppressionOp, TiesKeepTheLowerIndexAndNaNScoresAreNeverSelected) {
  auto y = RunOp("NonMaxSuppression", 11, Attributes(), NmsInputs(kNaN, 0.5f));
  EXPECT_EQ(y[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 0}));
  // IoU 0.6 is not above 0.7: both overlapping boxes stay; box 2 (score 0.1) comes last.
  y = RunOp("NonMaxSuppression", 11, Attributes(), NmsInputs(0.1f, 0.7f));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 1, 0, 0, 2}));
}

TEST(NonMaxSuppressionOp, ScoreThresholdBudgetAndCenterBoxes) {
  std::vector<Tensor> in = NmsInputs(0.1f, 0.5f);
  in.push_back(Tensor::Scalar<float>(0.1f));  // score must be above 0.1: box 2 goes
  EXPECT_EQ(ToVector<int64_t>(RunOp("NonMaxSuppression", 11, Attributes(), in)[0]), (std::vector<int64_t>{0, 0, 0}));
  in[2] = Tensor::Scalar<int64_t>(0);
  EXPECT_EQ(RunOp("NonMaxSuppression", 11, Attributes(), in)[0].shape(), (Shape{0, 3}));
  // The same boxes as [x_center, y_center, width, height].
  Attributes center;
  center.Set("center_point_box", IntAttr(1));
  std::vector<Tensor> c = NmsInputs(0.1f, 0.5f);
  c[0] = Tensor::FromVector<float>({1, 3, 4}, {0.5f, 0.5f, 1, 1, 0.75f, 0.5f, 1, 1, 5.5f, 5.5f, 1, 1});
  EXPECT_EQ(ToVector<int64_t>(RunOp("NonMaxSuppression", 11, center, c)[0]), (std::vector<int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(NonMaxSuppressionOp, InputErrors) {
  EXPECT_NE(ErrorOf([&] { RunOp("NonMaxSuppression", 11, Attributes(), NmsInputs(0.1f, 1.5f)); }).find("iou_threshold"),
            std::string::npos);
  std::vector<Tensor> in = NmsInputs(0.1f, 0.5f);
  in[1] = Tensor(DataType::kFloat, {1, 1, 2});
  EXPECT_NE(ErrorOf([&] { RunOp("NonMaxSuppression", 11, Attributes(), in); }).find("[B, N, 4] and [B, C, N]"),
            std::string::npos);
  Attributes bad;
  bad.Set("center_point_box", IntAttr(2));
  EXPECT_NE(ErrorOf([&] { RunOp("NonMaxSuppression", 11, bad, NmsInputs(0.1f, 0.5f)); }), "");
}

TEST(UniqueOp, UnsortedKeepsFirstOccurrenceOrderAndNaNsGroup) {
  Attributes unsorted;
  unsorted.Set("sorted", IntAttr(0));
  const auto y = RunOp("Unique", 11, unsorted, {Tensor::FromVector<float>({6}, {3, kNaN, 1, 3, kNaN, -0.0f})}, 4);
  const std::vector<float> values = ToVector<float>(y[0]);
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0], 3);
  EXPECT_TRUE(std::isnan(values[1]));
  EXPECT_EQ(values[2], 1);
  EXPECT_EQ(values[3], 0);
  EXPECT_EQ(ToVector<int64_t>(y[1]), (std::vector<int64_t>{0, 1, 2, 5}));
  EXPECT_EQ(ToVector<int64_t>(y[2]), (std::vector<int64_t>{0, 1, 2, 0, 1, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[3]), (std::vector<int64_t>{2, 2, 1, 1}));
}

// numpy.unique([[1, 0, 0], [1, 0, 0], [2, 3, 4]], axis=0) and the columns (axis=1) of the same matrix.
TEST(UniqueOp, SlicesAlongAnAxis) {
  const Tensor x = Tensor::FromVector<int64_t>({3, 3}, {1, 0, 0, 1, 0, 0, 2, 3, 4});
  Attributes rows;
  rows.Set("axis", IntAttr(0));
  auto y = RunOp("Unique", 11, rows, {x}, 4);
  EXPECT_EQ(y[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{1, 0, 0, 2, 3, 4}));
  EXPECT_EQ(ToVector<int64_t>(y[2]), (std::vector<int64_t>{0, 0, 1}));
  Attributes cols;
  cols.Set("axis", IntAttr(-1));
  y = RunOp("Unique", 11, cols, {x}, 1);
  // Columns (1,1,2), (0,0,3), (0,0,4) sorted: (0,0,3), (0,0,4), (1,1,2).
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{0, 0, 1, 0, 0, 1, 3, 4, 2}));
}

}  // namespace
}  // namespace ptq
