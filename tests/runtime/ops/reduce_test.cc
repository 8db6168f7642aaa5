// Tests of the Reduce* ops, ArgMax/ArgMin and TopK against values computed independently with
// numpy (float64, rounded to 7 digits) or by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::ToVector;

// Float32 sums of up to 24 terms against float64 numpy, plus the 7-digit rounding.
constexpr float kTol = 2e-6f;

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol = kTol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol * std::max(1.0f, std::fabs(expected[i]))) << "element " << i;
  }
}

// numpy: x = np.arange(24).reshape(2, 3, 4) ** 1.5 * 0.1
Tensor X234() {
  std::vector<float> v(24);
  for (int i = 0; i < 24; ++i) v[static_cast<size_t>(i)] = static_cast<float>(std::pow(i, 1.5) * 0.1);
  return Tensor::FromVector<float>({2, 3, 4}, v);
}

Tensor Axes(const std::vector<int64_t>& axes) {
  return Tensor::FromVector<int64_t>({static_cast<int64_t>(axes.size())}, axes);
}

// numpy: x.mean(axis=(-1, 0), keepdims=True)
TEST(ReduceMeanOp, NegativeAxesKeepDims) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({-1, 0}));
  std::vector<Tensor> y = RunOp("ReduceMean", 13, attrs, {X234()});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3, 1}));
  ExpectNear(ToVector<float>(y[0]), {2.599299f, 4.320962f, 6.461289f});
}

// numpy: x.mean(axis=-2)
TEST(ReduceMeanOp, NegativeAxisNoKeepDims) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({-2}));
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceMean", 13, attrs, {X234()});
  EXPECT_EQ(y[0].shape(), (Shape{2, 4}));
  ExpectNear(ToVector<float>(y[0]), {1.020914f, 1.306011f, 1.638271f, 2.006643f, 6.500398f, 7.106635f, 7.731329f, 8.373932f});
}

// From opset 18 the axes are input 1; the same reduction as the opset 13 attribute form.
TEST(ReduceMeanOp, Opset18TakesAxesAsInput) {
  Attributes attrs;
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceMean", 18, attrs, {X234(), Axes({-2})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 4}));
  ExpectNear(ToVector<float>(y[0]), {1.020914f, 1.306011f, 1.638271f, 2.006643f, 6.500398f, 7.106635f, 7.731329f, 8.373932f});
  // At opset 13 an 'axes' input is not read: every axis is reduced (mean of all 24 values).
  Attributes keep0;
  keep0.Set("keepdims", IntAttr(0));
  std::vector<Tensor> all = RunOp("ReduceMean", 13, keep0, {X234(), Axes({-2})});
  EXPECT_EQ(all[0].shape(), Shape{});
  ExpectNear(ToVector<float>(all[0]), {4.460517f});
}

// numpy: x.mean(axis=(0, 2)); reduced and kept axes interleave.
TEST(ReduceMeanOp, InterleavedAxes) {
  Attributes attrs;
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceMean", 18, attrs, {X234(), Axes({0, 2})});
  EXPECT_EQ(y[0].shape(), (Shape{3}));
  ExpectNear(ToVector<float>(y[0]), {2.599299f, 4.320962f, 6.461289f});
}

// The transposing path (reduced and kept axes alternate) against two single-block reductions.
TEST(ReduceSumOp, TransposedPathMatchesSequentialReductions) {
  std::vector<float> v(4 * 3 * 5 * 2);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(1.3f * static_cast<float>(i)) * 3.0f;
  const Tensor x = Tensor::FromVector<float>({4, 3, 5, 2}, v);
  Attributes keep0;
  keep0.Set("keepdims", IntAttr(0));
  const Tensor both = RunOp("ReduceSum", 13, keep0, {x, Axes({0, 2})})[0];
  EXPECT_EQ(both.shape(), (Shape{3, 2}));
  const Tensor step = RunOp("ReduceSum", 13, keep0, {RunOp("ReduceSum", 13, keep0, {x, Axes({2})})[0], Axes({0})})[0];
  ExpectNear(ToVector<float>(both), ToVector<float>(step), 1e-5f);
}

TEST(ReduceSumOp, EmptyAxesWithNoopIsIdentity) {
  Attributes attrs;
  attrs.Set("noop_with_empty_axes", IntAttr(1));
  std::vector<Tensor> y = RunOp("ReduceSum", 13, attrs, {X234(), Axes({})});
  EXPECT_EQ(y[0].shape(), (Shape{2, 3, 4}));
  EXPECT_EQ(ToVector<float>(y[0]), ToVector<float>(X234()));
}

// Empty axes without noop_with_empty_axes reduce every axis: 0 + 1 + ... + 5 = 15.
TEST(ReduceSumOp, EmptyAxesWithoutNoopReducesEverything) {
  Tensor x = Tensor::FromVector<int64_t>({2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<Tensor> y = RunOp("ReduceSum", 13, Attributes(), {x, Axes({})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{15}));
}

// noop_with_empty_axes reduces each element on its own: ReduceSumSquare squares.
TEST(ReduceSumSquareOp, NoopSquaresEachElement) {
  Attributes attrs;
  attrs.Set("noop_with_empty_axes", IntAttr(1));
  std::vector<Tensor> y = RunOp("ReduceSumSquare", 18, attrs, {Tensor::FromVector<float>({3}, {-2.0f, 0.5f, 3.0f})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{4.0f, 0.25f, 9.0f}));
}

// numpy: (x ** 2).sum() over all axes = 761.76
TEST(ReduceSumSquareOp, AllAxes) {
  Attributes attrs;
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceSumSquare", 13, attrs, {X234()});
  ExpectNear(ToVector<float>(y[0]), {761.76f});
}

// numpy: np.log(np.exp(x).sum(axis=1))
TEST(ReduceLogSumExpOp, MiddleAxis) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({1}));
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceLogSumExp", 13, attrs, {X234()});
  ExpectNear(ToVector<float>(y[0]), {2.552171f, 2.946738f, 3.377558f, 3.838655f, 9.027569f, 9.700753f, 10.39089f, 11.09753f});
}

// numpy: np.sqrt((x ** 2).sum(axis=0))
TEST(ReduceL2Op, LeadingAxis) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({0}));
  std::vector<Tensor> y = RunOp("ReduceL2", 13, attrs, {X234()});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3, 4}));
  ExpectNear(ToVector<float>(y[0]), {4.156922f, 4.688283f, 5.245951f, 5.832667f, 6.449806f, 7.097887f, 7.776889f,
                                     8.48646f, 9.22605f, 9.994999f, 10.79259f, 11.61809f});
}

// Reducing an empty axis gives each reduction's value on an empty set.
TEST(ReduceOps, EmptySetValues) {
  const Tensor x(DataType::kFloat, {2, 0});
  Attributes attrs;
  attrs.Set("axes", IntsAttr({1}));
  attrs.Set("keepdims", IntAttr(0));
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(ToVector<float>(RunOp("ReduceSum", 11, attrs, {x})[0]), (std::vector<float>{0, 0}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceProd", 13, attrs, {x})[0]), (std::vector<float>{1, 1}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceMax", 13, attrs, {x})[0]), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceMin", 13, attrs, {x})[0]), (std::vector<float>{inf, inf}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceL2", 13, attrs, {x})[0]), (std::vector<float>{0, 0}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceLogSum", 13, attrs, {x})[0]), (std::vector<float>{-inf, -inf}));
  EXPECT_EQ(ToVector<float>(RunOp("ReduceLogSumExp", 13, attrs, {x})[0]), (std::vector<float>{-inf, -inf}));
  const Tensor xi(DataType::kInt32, {2, 0});
  EXPECT_EQ(ToVector<int32_t>(RunOp("ReduceMax", 13, attrs, {xi})[0]),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), std::numeric_limits<int32_t>::min()}));
}

TEST(ReduceMaxOp, IntegersAndBool) {
  Attributes attrs;
  attrs.Set("keepdims", IntAttr(0));
  std::vector<Tensor> y = RunOp("ReduceMax", 20, attrs, {Tensor::FromVector<int8_t>({2, 2}, {-5, -7, 3, 2}), Axes({1})});
  EXPECT_EQ(ToVector<int8_t>(y[0]), (std::vector<int8_t>{-5, 3}));
  std::vector<Tensor> b = RunOp("ReduceMax", 20, attrs, {Tensor::FromVector<bool>({2, 2}, {false, true, false, false}), Axes({1})});
  EXPECT_EQ(ToVector<bool>(b[0]), (std::vector<bool>{true, false}));
}

// x = [[2, 5, 1, 5], [3, 3, 0, 1]]: the maxima are tied in row 0 (5 at 1 and 3), row 1 (3 at 0 and 1).
TEST(ArgMaxOp, SelectLastIndexPicksTheLastTie) {
  Tensor x = Tensor::FromVector<float>({2, 4}, {2, 5, 1, 5, 3, 3, 0, 1});
  Attributes first;
  first.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("ArgMax", 13, first, {x});
  EXPECT_EQ(y[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{1, 0}));
  Attributes last = first;
  last.Set("select_last_index", IntAttr(1));
  last.Set("keepdims", IntAttr(0));
  y = RunOp("ArgMax", 13, last, {x});
  EXPECT_EQ(y[0].shape(), (Shape{2}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{3, 1}));
}

TEST(ArgMinOp, AlongLeadingAxis) {
  Tensor x = Tensor::FromVector<int32_t>({2, 3}, {4, 1, 7, 2, 1, 9});
  std::vector<Tensor> y = RunOp("ArgMin", 11, Attributes(), {x});
  EXPECT_EQ(y[0].shape(), (Shape{1, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[0]), (std::vector<int64_t>{1, 0, 0}));
}

// numpy: np.argsort(-x, kind='stable')[:3] = [5, 7, 0]: ties keep the lower index first.
TEST(TopKOp, LargestWithTies) {
  Tensor x = Tensor::FromVector<float>({8}, {3, 1, 3, 2, 1, 5, 0, 5});
  std::vector<Tensor> y = RunOp("TopK", 11, Attributes(), {x, Tensor::FromVector<int64_t>({1}, {3})}, 2);
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{5, 5, 3}));
  EXPECT_EQ(ToVector<int64_t>(y[1]), (std::vector<int64_t>{5, 7, 0}));
}

// numpy: np.argsort(x, kind='stable')[:3] = [6, 1, 4].
TEST(TopKOp, SmallestWithTies) {
  Tensor x = Tensor::FromVector<float>({8}, {3, 1, 3, 2, 1, 5, 0, 5});
  Attributes attrs;
  attrs.Set("largest", IntAttr(0));
  std::vector<Tensor> y = RunOp("TopK", 11, attrs, {x, Tensor::FromVector<int64_t>({1}, {3})}, 2);
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 1, 1}));
  EXPECT_EQ(ToVector<int64_t>(y[1]), (std::vector<int64_t>{6, 1, 4}));
}

// Opset 1 reads k from the attribute; a non-last axis selects along columns.
TEST(TopKOp, Opset1AttributeAlongAxis0) {
  Tensor x = Tensor::FromVector<int32_t>({3, 2}, {1, 9, 7, 2, 4, 8});
  Attributes attrs;
  attrs.Set("k", IntAttr(2));
  attrs.Set("axis", IntAttr(0));
  std::vector<Tensor> y = RunOp("TopK", 1, attrs, {x}, 2);
  EXPECT_EQ(y[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(ToVector<int32_t>(y[0]), (std::vector<int32_t>{7, 9, 4, 8}));
  EXPECT_EQ(ToVector<int64_t>(y[1]), (std::vector<int64_t>{1, 0, 2, 2}));
}

}  // namespace
}  // namespace ptq
