// Tests of Conv: groups, depthwise (with channel multiplier, strides, dilations, 1-D), stride +
// dilation + asymmetric pads, 1x1, 1-D, 3-D, auto_pad, float16, constant weights, errors. Expected
// values: an independent numpy loop (np.pad with explicit pads, then a sliding-window sum) on
// Pattern() inputs (X salt 0, W salt 1, B salt 2).
#include "runtime/ops/conv.h"

#include <gtest/gtest.h>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::IntAttr;
using testing::IntsAttr;
using testing::PatternTensor;
using testing::StringAttr;

Attributes ConvAttrs(int64_t group, std::vector<int64_t> strides = {}, std::vector<int64_t> dilations = {},
                     std::vector<int64_t> pads = {}) {
  Attributes a;
  a.Set("group", IntAttr(group));
  if (!strides.empty()) a.Set("strides", IntsAttr(strides));
  if (!dilations.empty()) a.Set("dilations", IntsAttr(dilations));
  if (!pads.empty()) a.Set("pads", IntsAttr(pads));
  return a;
}

// Runs Conv with X = Pattern(x_shape, 0), W = Pattern(w_shape, 1), B = Pattern([M], 2) when with_bias,
// with W and B both dynamic and constant.
void ExpectConv(const Attributes& attrs, const Shape& x_shape, const Shape& w_shape, bool with_bias,
                const Shape& y_shape, const std::vector<float>& expected) {
  std::vector<Tensor> in{PatternTensor(x_shape, 0), PatternTensor(w_shape, 1)};
  if (with_bias) in.push_back(PatternTensor({w_shape[0]}, 2));
  for (bool constant : {false, true}) {
    ExpectValues(testing::RunOp("Conv", 11, attrs, in, 1, constant)[0], y_shape, expected);
  }
}

TEST(ConvTest, TwoGroups) {
  ExpectConv(
      ConvAttrs(2, {}, {}, {1, 1, 1, 1}), {1, 4, 5, 5}, {6, 2, 3, 3}, true, {1, 6, 5, 5},
      {-1.5625f, 6.1875f, -4.5f,    5.9375f,  -2.4375f, 1.4375f,  -5.875f,  3.0625f,  -3.4375f, 4.5f,     -0.9375f,
       6.3125f,  0.625f,  0.625f,   4.4375f,  -0.875f,  6.3125f,  -3.4375f, 3.0625f,  -3.75f,   2.5625f,  -4.75f,
       5.9375f,  -4.5f,   3.5625f,  -0.0625f, -0.5f,    -0.5f,    -0.5f,    0.125f,   1.5f,     2.375f,   -1.5f,
       0.3125f,  -4.0f,   -1.0625f, -3.1875f, -0.5625f, -2.8125f, 3.0625f,  -1.1875f, 0.1875f,  -1.25f,   3.0f,
       2.0f,     0.4375f, 2.625f,   -2.8125f, 2.3125f,  -4.0f,    2.25f,    -4.75f,   5.9375f,  -4.5f,    3.5f,
       -1.6875f, 4.9375f, -0.375f,  0.0f,     4.5625f,  -0.375f,  6.8125f,  -2.5625f, 4.3125f,  -2.375f,  3.375f,
       -3.5f,    4.1875f, -3.5625f, 3.6875f,  1.5625f,  1.0625f,  1.4375f,  1.8125f,  2.25f,    -1.3125f, -0.5625f,
       2.9375f,  3.1875f, -3.625f,  -2.5625f, -0.9375f, 4.5f,     -5.5f,    4.4375f,  -3.0625f, 3.5f,     -6.5f,
       3.0f,     -5.125f, 3.75f,    -0.1875f, 0.375f,   -0.6875f, -1.6875f, 2.4375f,  -5.5625f, 4.6875f,  -6.1875f,
       5.25f,    1.375f,  -0.1875f, 1.8125f,  0.5625f,  1.75f,    1.3125f,  2.0625f,  0.375f,   4.375f,   3.8125f,
       0.625f,   2.5625f, 3.3125f,  2.4375f,  1.375f,   0.75f,    -1.0f,    -0.25f,   -1.125f,  1.375f,   2.3125f,
       4.0f,     3.8125f, 3.625f,   2.125f,   -2.4375f, -0.625f,  3.9375f,  -5.3125f, 5.5f,     -2.125f,  2.625f,
       -6.1875f, 1.25f,   -5.75f,   3.5f,     -0.8125f, 0.125f,   -0.5625f, -1.0625f, 3.4375f,  -4.25f,   7.25f,
       -4.0f,    6.0625f, -3.5f,    0.5625f,  -4.375f,  1.25f,    -3.4375f});
}

TEST(ConvTest, DepthwiseWithBias) {
  ExpectConv(
      ConvAttrs(3, {}, {}, {1, 1, 1, 1}), {2, 3, 6, 6}, {3, 1, 3, 3}, true, {2, 3, 6, 6},
      {1.8125f,  3.125f,   1.625f,   2.5625f,  1.0625f,  1.0625f,  -3.8125f, 5.4375f,  -6.0625f, 5.1875f,  -6.3125f,
       4.375f,   0.4375f,  3.875f,   2.125f,   3.625f,   1.875f,   3.1875f,  0.625f,   -4.1875f, 5.4375f,  -6.0625f,
       5.1875f,  -3.6875f, 4.0625f,  -2.5f,    3.875f,   2.125f,   3.625f,   0.8125f,  2.0625f,  3.25f,    -3.8125f,
       3.75f,    -4.125f,  3.125f,   0.8125f,  0.5f,     -2.1875f, 1.625f,   -5.9375f, 0.875f,   -5.0625f, 3.9375f,
       -5.6875f, 0.125f,   1.875f,   -0.9375f, 1.8125f,  0.625f,   2.375f,   -4.0f,    3.4375f,  -5.1875f, 3.0f,
       -7.5625f, 3.9375f,  -5.6875f, 0.125f,   1.9375f,  -0.6875f, 2.125f,   0.625f,   2.375f,   -4.0f,    2.5625f,
       -3.5625f, 2.625f,   -5.625f,  3.1875f,  -3.4375f, -0.875f,  -1.9375f, 5.0f,     -2.125f,  5.375f,   -1.75f,
       3.8125f,  2.4375f,  -2.3125f, 2.9375f,  -2.375f,  2.875f,   0.0625f,  2.1875f,  0.75f,    3.5625f,  0.6875f,
       3.5f,     0.0625f,  -0.5f,    3.0f,     -2.3125f, 2.9375f,  -2.375f,  2.5f,     3.3125f,  2.0f,     0.75f,
       3.5625f,  0.6875f,  2.5f,     1.25f,    -1.4375f, 4.5625f,  -4.0625f, 4.375f,   -1.75f,   1.1875f,  2.0f,
       -1.9375f, 4.6875f,  -4.125f,  3.4375f,  -3.6875f, 4.9375f,  -2.5f,    3.875f,   2.125f,   3.3125f,  0.5625f,
       3.375f,   1.625f,   -4.1875f, 5.4375f,  -3.5625f, 4.0f,     -6.3125f, 4.9375f,  -2.5f,    3.875f,   0.9375f,
       3.375f,   1.875f,   3.375f,   1.625f,   -4.1875f, 4.625f,   -2.5625f, 3.4375f,  -4.4375f, 3.125f,   -0.6875f,
       2.3125f,  -4.0625f, 1.9375f,  -5.625f,  2.25f,    -5.3125f, 0.625f,   1.6875f,  0.375f,   2.125f,   0.625f,
       2.375f,   -1.0625f, 2.875f,   -7.8125f, 3.6875f,  -7.5625f, 3.9375f,  -5.3125f, -0.8125f, 1.875f,   0.375f,
       2.125f,   0.625f,   1.8125f,  -5.3125f, 3.4375f,  -7.8125f, 3.6875f,  -7.5625f, 2.4375f,  -1.0625f, 0.5f,
       -0.4375f, 1.0625f,  0.125f,   -0.25f,   -1.3125f, 2.5f,     1.0625f,  0.4375f,  1.4375f,  1.75f,    2.8125f,
       0.8125f,  2.0f,     0.75f,    3.5625f,  0.0625f,  2.5625f,  0.625f,   0.1875f,  3.0f,     -2.3125f, 2.5f,
       -0.125f,  2.875f,   0.8125f,  2.0f,     0.75f,    2.5f,     -0.375f,  3.5f,     0.625f,   0.1875f,  3.0f,
       0.0625f,  3.5625f,  -4.25f,   4.1875f,  -1.1875f, 2.375f,   1.9375f});
}

TEST(ConvTest, DepthwiseMultiplierStridesDilationsAsymmetricPads) {
  ExpectConv(ConvAttrs(2, {2, 2}, {2, 1}, {1, 0, 2, 1}), {1, 2, 7, 6}, {4, 1, 3, 2}, true, {1, 4, 3, 3},
             {0.625f,   0.0f,     -0.625f,  2.625f,  2.3125f,  2.0f,     -1.4375f, -1.5f,    -1.5625f,
              -0.6875f, -0.5625f, -0.4375f, -2.125f, -2.125f,  -2.125f,  -0.6875f, -0.8125f, -0.9375f,
              4.1875f,  4.25f,    -1.375f,  0.5f,    0.8125f,  -2.9375f, 1.8125f,  2.4375f,  3.875f,
              -0.0625f, -0.0625f, -0.0625f, -1.75f,  -1.9375f, -0.5f,    -0.375f,  -0.625f,  -2.5f});
}

TEST(ConvTest, DepthwiseOneDimensional) {
  ExpectConv(ConvAttrs(3, {2}, {}, {1, 1}), {1, 3, 9}, {3, 1, 3}, false, {1, 3, 5},
             {-2.25f, -1.9375f, -1.625f, -1.3125f, -1.0f, 0.625f, 0.75f, -0.6875f, -1.3125f, -1.0f, -1.3125f, -1.75f,
              -1.6875f, -1.625f, 1.5f});
}

TEST(ConvTest, StrideTwoDilationTwoAsymmetricPads) {
  ExpectConv(
      ConvAttrs(1, {2, 2}, {2, 2}, {1, 0, 2, 1}), {1, 2, 7, 8}, {3, 2, 3, 2}, true, {1, 3, 3, 4},
      {2.6875f, 1.375f,  0.875f,  0.8125f, 2.25f,    1.9375f, 1.625f,  2.6875f, -2.1875f, -1.5625f, -1.75f,  2.125f,
       -3.75f,  1.1875f, 1.25f,   1.0f,    2.0f,     -2.75f,  -2.625f, -4.75f,  3.1875f,  -0.5f,    -0.125f, -1.125f,
       2.8125f, 2.625f,  2.4375f, 1.1875f, -2.3125f, -1.75f,  -2.0f,   2.4375f, -0.375f,  1.375f,   1.5f,    2.125f});
}

TEST(ConvTest, PointwiseBatchOfTwo) {
  ExpectConv(
      ConvAttrs(1), {2, 3, 4, 4}, {5, 3, 1, 1}, true, {2, 5, 4, 4},
      {2.125f,  -0.5625f, 2.4375f,  -0.25f,   2.75f,    0.0625f,  3.0625f,  0.375f,   3.375f,   0.6875f,  -1.1875f,
       1.0f,    -0.875f,  2.125f,   -0.5625f, 2.4375f,  2.8125f,  -2.375f,  2.1875f,  -3.0f,    1.5625f,  -3.625f,
       0.9375f, -0.1875f, 0.3125f,  -0.8125f, -1.125f,  -1.4375f, -1.75f,   2.8125f,  -2.375f,  2.1875f,  -0.5625f,
       3.125f,  -0.5f,    3.1875f,  -0.4375f, 3.25f,    -0.375f,  0.875f,   -0.3125f, 0.9375f,  3.0f,     1.0f,
       3.0625f, -0.5625f, 3.125f,   -0.5f,    1.75f,    -1.9375f, 1.6875f,  -2.0f,    1.625f,   -2.0625f, 1.5625f,
       -0.5f,   1.5f,     -0.5625f, -1.8125f, -0.625f,  -1.875f,  1.75f,    -1.9375f, 1.6875f,  -1.625f,  3.5625f,
       -1.0f,   4.1875f,  -0.375f,  4.8125f,  0.25f,    0.5625f,  0.875f,   1.1875f,  2.3125f,  1.8125f,  2.9375f,
       -1.625f, 3.5625f,  -1.0f,    0.6875f,  -1.1875f, 1.0f,     -0.875f,  2.125f,   -0.5625f, 2.4375f,  -0.25f,
       2.75f,   0.0625f,  3.0625f,  0.375f,   3.375f,   0.6875f,  -1.1875f, 1.0f,     -0.8125f, -1.125f,  -1.4375f,
       -1.75f,  2.8125f,  -2.375f,  2.1875f,  -3.0f,    1.5625f,  -3.625f,  0.9375f,  -0.1875f, 0.3125f,  -0.8125f,
       -1.125f, -1.4375f, 0.9375f,  3.0f,     1.0f,     3.0625f,  -0.5625f, 3.125f,   -0.5f,    3.1875f,  -0.4375f,
       3.25f,   -0.375f,  0.875f,   -0.3125f, 0.9375f,  3.0f,     1.0f,     -0.5625f, -1.8125f, -0.625f,  -1.875f,
       1.75f,   -1.9375f, 1.6875f,  -2.0f,    1.625f,   -2.0625f, 1.5625f,  -0.5f,    1.5f,     -0.5625f, -1.8125f,
       -0.625f, 1.1875f,  2.3125f,  1.8125f,  2.9375f,  -1.625f,  3.5625f,  -1.0f,    4.1875f,  -0.375f,  4.8125f,
       0.25f,   0.5625f,  0.875f,   1.1875f,  2.3125f,  1.8125f});
}

TEST(ConvTest, OneDimensional) {
  ExpectConv(ConvAttrs(1, {2}, {2}, {2, 1}), {2, 2, 7}, {3, 2, 3}, true, {2, 3, 3},
             {-2.5625f, -3.5625f, 0.1875f, 0.4375f, -1.0f, 0.625f, -1.4375f, -3.3125f, -3.8125f, 1.5625f, 2.375f,
              2.0625f, -0.75f, -0.1875f, -0.1875f, 2.625f, 2.9375f, 3.25f});
}

TEST(ConvTest, ThreeDimensionalGroups) {
  ExpectConv(
      ConvAttrs(2, {}, {}, {1, 0, 1, 0, 1, 1}), {1, 2, 4, 3, 5}, {2, 1, 2, 2, 3}, false, {1, 2, 4, 3, 5},
      {2.8125f,  -3.75f,   3.5625f,  -3.75f,   2.875f,  -2.3125f, 3.5625f,  -2.125f,  0.3125f,  -0.125f,  1.375f,
       -1.625f,  -0.375f,  1.6875f,  -1.0f,    1.75f,   -5.5625f, 3.625f,   -5.875f,  2.25f,    -1.4375f, -0.25f,
       1.625f,   -1.375f,  4.125f,   -1.5f,    4.0f,    -2.3125f, -0.5f,    -0.375f,  1.9375f,  -5.875f,  3.3125f,
       -4.5625f, -1.0625f, 2.8125f,  -1.375f,  6.1875f, -4.125f,  7.3125f,  -1.1875f, -0.5f,    -1.125f,  -0.125f,
       -0.1875f, 2.125f,   -4.5625f, -0.25f,   1.625f,  -1.9375f, 3.0f,     -4.125f,  9.125f,   -6.0625f, 2.375f,
       -0.875f,  -0.125f,  -0.75f,   0.25f,    0.0f,    -0.125f,  -1.0625f, -1.5625f, -1.25f,   -0.75f,   -2.3125f,
       5.375f,   -3.25f,   5.1875f,  -2.4375f, 1.125f,  -2.3125f, 1.9375f,  -2.75f,   1.25f,    4.125f,   -3.25f,
       7.375f,   -4.75f,   6.5f,     -2.9375f, 2.75f,   -3.6875f, 2.875f,   -3.625f,  -0.3125f, -0.125f,  -0.4375f,
       0.0625f,  0.125f,   7.3125f,  -4.75f,   6.6875f, -3.8125f, 2.125f,   -3.0f,    2.875f,   -3.5625f, -0.25f,
       -1.5f,    -0.125f,  0.0625f,  -0.25f,   3.5f,    -1.4375f, 2.375f,   -3.8125f, 2.75f,    -3.6875f, 1.8125f,
       -3.0625f, -0.25f,   -1.0f,    -3.375f,  3.0625f, 0.0625f,  3.5f,     -1.6875f, 2.875f,   -0.5625f});
}

TEST(ConvTest, AutoPadSameUpperPutsTheOddPadAtTheEnd) {
  // 5x6 input, 3x3 kernel, stride 2: output 3x3, pads h 1+1, w 0+1.
  Attributes a = ConvAttrs(1, {2, 2});
  a.Set("auto_pad", StringAttr("SAME_UPPER"));
  ExpectConv(a, {1, 1, 5, 6}, {2, 1, 3, 3}, false, {1, 2, 3, 3},
             {2.125f, 1.5625f, 0.0625f, 2.875f, 2.625f, 2.1875f, -1.6875f, 2.875f, 1.3125f, -5.4375f, -5.125f, -3.6875f,
              3.9375f, 4.1875f, 2.9375f, -2.1875f, -5.6875f, -2.875f});
}

TEST(ConvTest, Float16ComputesInFloat32) {
  const std::vector<Tensor> in{testing::ToHalf(PatternTensor({1, 4, 5, 5}, 0)),
                               testing::ToHalf(PatternTensor({6, 2, 3, 3}, 1)), testing::ToHalf(PatternTensor({6}, 2))};
  for (bool constant : {false, true}) {
    const Tensor y = testing::RunOp("Conv", 11, ConvAttrs(2, {}, {}, {1, 1, 1, 1}), in, 1, constant)[0];
    ExpectValues(
        y, {1, 6, 5, 5},
        {-1.5625f, 6.1875f, -4.5f,    5.9375f,  -2.4375f, 1.4375f,  -5.875f,  3.0625f,  -3.4375f, 4.5f,     -0.9375f,
         6.3125f,  0.625f,  0.625f,   4.4375f,  -0.875f,  6.3125f,  -3.4375f, 3.0625f,  -3.75f,   2.5625f,  -4.75f,
         5.9375f,  -4.5f,   3.5625f,  -0.0625f, -0.5f,    -0.5f,    -0.5f,    0.125f,   1.5f,     2.375f,   -1.5f,
         0.3125f,  -4.0f,   -1.0625f, -3.1875f, -0.5625f, -2.8125f, 3.0625f,  -1.1875f, 0.1875f,  -1.25f,   3.0f,
         2.0f,     0.4375f, 2.625f,   -2.8125f, 2.3125f,  -4.0f,    2.25f,    -4.75f,   5.9375f,  -4.5f,    3.5f,
         -1.6875f, 4.9375f, -0.375f,  0.0f,     4.5625f,  -0.375f,  6.8125f,  -2.5625f, 4.3125f,  -2.375f,  3.375f,
         -3.5f,    4.1875f, -3.5625f, 3.6875f,  1.5625f,  1.0625f,  1.4375f,  1.8125f,  2.25f,    -1.3125f, -0.5625f,
         2.9375f,  3.1875f, -3.625f,  -2.5625f, -0.9375f, 4.5f,     -5.5f,    4.4375f,  -3.0625f, 3.5f,     -6.5f,
         3.0f,     -5.125f, 3.75f,    -0.1875f, 0.375f,   -0.6875f, -1.6875f, 2.4375f,  -5.5625f, 4.6875f,  -6.1875f,
         5.25f,    1.375f,  -0.1875f, 1.8125f,  0.5625f,  1.75f,    1.3125f,  2.0625f,  0.375f,   4.375f,   3.8125f,
         0.625f,   2.5625f, 3.3125f,  2.4375f,  1.375f,   0.75f,    -1.0f,    -0.25f,   -1.125f,  1.375f,   2.3125f,
         4.0f,     3.8125f, 3.625f,   2.125f,   -2.4375f, -0.625f,  3.9375f,  -5.3125f, 5.5f,     -2.125f,  2.625f,
         -6.1875f, 1.25f,   -5.75f,   3.5f,     -0.8125f, 0.125f,   -0.5625f, -1.0625f, 3.4375f,  -4.25f,   7.25f,
         -4.0f,    6.0625f, -3.5f,    0.5625f,  -4.375f,  1.25f,    -3.4375f},
        testing::kHalfTolerance, true);
  }
}

TEST(ConvTest, BadInputsAreInputErrors) {
  const Tensor x = PatternTensor({1, 4, 5, 5}, 0);
  EXPECT_NE(testing::InputErrorOf([&] {
              testing::RunOp("Conv", 11, ConvAttrs(1), {x, PatternTensor({6, 2, 3, 3}, 1)});
            }),
            "");
  EXPECT_NE(testing::InputErrorOf([&] {
              testing::RunOp("Conv", 11, ConvAttrs(2), {x, PatternTensor({6, 2, 3, 3}, 1), PatternTensor({5}, 2)});
            }),
            "");
  EXPECT_NE(testing::InputErrorOf([&] {
              testing::RunOp("Conv", 11, ConvAttrs(1), {x, PatternTensor({6, 4, 7, 7}, 1)});
            }),
            "");
}

}  // namespace
}  // namespace ptq
