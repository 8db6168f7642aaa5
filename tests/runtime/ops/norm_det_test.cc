// Tests of LRN (channel windows at the edges, even sizes), MeanVarianceNormalization (constant input,
// custom axes) and Det (pivoting, singular, batched and empty matrices), with named tolerances.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::FloatAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

constexpr double kTol = 1e-6;  // relative, float32 results of double-checked formulas

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], kTol * std::max(1.0, std::fabs(want[i]))) << i;
}

// size 2 over 3 channels: the window of channel c is [c, c + 1] (floor((2-1)/2) = 0 before, 1 after).
TEST(LRNOp, EvenSizeWindowsStopAtTheChannelEdges) {
  Attributes a;
  a.Set("size", IntAttr(2));
  a.Set("alpha", FloatAttr(0.5f));
  a.Set("beta", FloatAttr(1.0f));
  a.Set("bias", FloatAttr(2.0f));
  const auto y = RunOp("LRN", 13, a, {Tensor::FromVector<float>({1, 3, 1}, {1, 2, 3})});
  // y_c = x_c / (2 + 0.25 * sum of squares in the window)
  ExpectNear(ToVector<float>(y[0]), {1 / (2 + 0.25 * 5), 2 / (2 + 0.25 * 13), 3 / (2 + 0.25 * 9)});
  a.Set("size", IntAttr(0));
  EXPECT_NE(ErrorOf([&] {
              RunOp("LRN", 13, a, {Tensor(DataType::kFloat, {1, 3, 1})});
            }).find("'size'"),
            std::string::npos);
  Attributes no_size;
  EXPECT_NE(ErrorOf([&] { RunOp("LRN", 13, no_size, {Tensor(DataType::kFloat, {1, 3, 1})}); }), "");
}

TEST(MeanVarianceNormalizationOp, ConstantInputGivesZerosAndAxesAreHonoured) {
  const auto zeros =
      RunOp("MeanVarianceNormalization", 13, Attributes(), {Tensor::FromVector<float>({1, 1, 2, 2}, {3, 3, 3, 3})});
  ExpectNear(ToVector<float>(zeros[0]), {0, 0, 0, 0});
  Attributes last;
  last.Set("axes", IntsAttr({-1}));
  const auto y = RunOp("MeanVarianceNormalization", 13, last, {Tensor::FromVector<float>({2, 2}, {1, 3, 10, 20})});
  ExpectNear(ToVector<float>(y[0]), {-1 / (1 + 1e-9), 1 / (1 + 1e-9), -5 / (5 + 1e-9), 5 / (5 + 1e-9)});
  last.Set("axes", IntsAttr({1, -1}));
  EXPECT_NE(ErrorOf([&] {
              RunOp("MeanVarianceNormalization", 13, last, {Tensor(DataType::kFloat, {2, 2})});
            }).find("twice"),
            std::string::npos);
  EXPECT_EQ(RunOp("MeanVarianceNormalization", 13, Attributes(), {Tensor(DataType::kFloat, {0, 2, 2, 2})})[0].shape(),
            (Shape{0, 2, 2, 2}));
}

TEST(DetOp, PivotingSingularAndBatched) {
  // [[0, 1], [1, 0]] needs a row swap: det -1; [[1, 2], [2, 4]] is singular; a 3x3 with det 18.
  const auto two = RunOp("Det", 11, Attributes(), {Tensor::FromVector<float>({2, 2, 2}, {0, 1, 1, 0, 1, 2, 2, 4})});
  EXPECT_EQ(two[0].shape(), (Shape{2}));
  ExpectNear(ToVector<float>(two[0]), {-1, 0});
  const auto three = RunOp("Det", 11, Attributes(), {Tensor::FromVector<float>({3, 3}, {2, 0, 1, 1, 3, 2, 1, 1, 4})});
  EXPECT_EQ(three[0].shape(), (Shape{}));
  ExpectNear(ToVector<float>(three[0]), {2 * (3 * 4 - 2 * 1) + 1 * (1 * 1 - 3 * 1)});
}

TEST(DetOp, EmptyMatricesAndShapeErrors) {
  ExpectNear(ToVector<float>(RunOp("Det", 11, Attributes(), {Tensor(DataType::kFloat, {2, 0, 0})})[0]), {1, 1});
  EXPECT_EQ(RunOp("Det", 11, Attributes(), {Tensor(DataType::kFloat, {0, 3, 3})})[0].shape(), (Shape{0}));
  EXPECT_NE(ErrorOf([&] {
              RunOp("Det", 11, Attributes(), {Tensor(DataType::kFloat, {2, 3})});
            }).find("[*, M, M]"),
            std::string::npos);
}

}  // namespace
}  // namespace ptq
