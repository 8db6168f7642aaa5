// Tests of ConvTranspose: output_padding, groups with dilations, output_shape, 1-D, float16. Expected
// values: an independent numpy scatter (y_full[i * s + k * d] += x[i] * w[k], then cropped by the
// pads) on Pattern() inputs (X salt 0, W salt 1, B salt 2).
#include "runtime/ops/nn/conv_transpose.h"

#include <gtest/gtest.h>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::IntAttr;
using testing::IntsAttr;
using testing::PatternTensor;

std::vector<Tensor> Inputs(const Shape& x_shape, const Shape& w_shape, int64_t bias_size) {
  std::vector<Tensor> in{PatternTensor(x_shape, 0), PatternTensor(w_shape, 1)};
  if (bias_size > 0) in.push_back(PatternTensor({bias_size}, 2));
  return in;
}

TEST(ConvTransposeTest, OutputPaddingWithPadsAndBias) {
  Attributes a;
  a.Set("strides", IntsAttr({2, 2}));
  a.Set("pads", IntsAttr({1, 1, 1, 1}));
  a.Set("output_padding", IntsAttr({1, 1}));
  // 2 * (3 - 1) + 1 + 3 - 2 = 6 per axis.
  for (bool constant : {false, true}) {
    const Tensor y = testing::RunOp("ConvTranspose", 11, a, Inputs({1, 2, 3, 3}, {2, 3, 3, 3}, 3), 1, constant)[0];
    ExpectValues(
        y, {1, 3, 6, 6},
        {-0.9375f, 3.0625f,  1.375f,  2.8125f,  -1.1875f, 3.3125f,  4.1875f,  -2.6875f, -0.9375f, 1.6875f,  4.5f,
         -1.4375f, 1.125f,   1.5f,    2.625f,   0.4375f,  0.875f,   0.1875f,  -0.625f,  4.75f,    2.375f,   -0.625f,
         -0.3125f, 2.875f,   2.375f,  -0.0625f, 0.625f,   0.5f,     2.125f,   1.125f,   0.8125f,  1.375f,   0.375f,
         2.125f,   0.75f,    1.375f,  1.75f,    -2.375f,  -0.9375f, -2.0625f, 2.0625f,  -2.375f,  2.5625f,  -3.0625f,
         -1.1875f, -4.0625f, 2.375f,  -2.75f,   -0.625f,  -0.625f,  -2.5f,    -1.125f,  -0.3125f, 0.625f,   -1.375f,
         0.4375f,  1.375f,   0.25f,   -1.5625f, -1.625f,  -2.1875f, -0.5f,    0.0f,     0.625f,   -1.875f,  -1.25f,
         0.3125f,  0.125f,   -1.875f, 0.625f,   0.0f,     0.625f,   3.625f,   -0.5f,    0.8125f,  -0.4375f, 3.6875f,
         -0.75f,   -0.6875f, 3.0625f, 2.625f,   2.375f,   -0.5625f, 3.25f,    0.875f,   2.125f,   0.5f,     1.375f,
         0.9375f,  1.875f,   2.75f,   -1.4375f, 0.375f,   -1.3125f, 2.875f,   1.1875f,  0.5625f,  1.5f,     1.0f,
         2.375f,   0.625f,   1.25f,   0.625f,   -0.3125f, 2.375f,   0.75f,    0.875f,   -0.125f});
  }
}

TEST(ConvTransposeTest, GroupsDilationsAsymmetricPads) {
  Attributes a;
  a.Set("group", IntAttr(2));
  a.Set("strides", IntsAttr({1, 2}));
  a.Set("dilations", IntsAttr({2, 1}));
  a.Set("pads", IntsAttr({0, 1, 1, 0}));
  // h: (3 - 1) + 3 - 1 = 4; w: 2 * (2 - 1) + 3 - 1 = 4.
  ExpectValues(
      testing::RunOp("ConvTranspose", 11, a, Inputs({2, 4, 3, 2}, {4, 1, 2, 3}, 0))[0], {2, 2, 4, 4},
      {-1.5f,   -0.125f,  -0.625f,  0.75f,    -1.375f, 0.125f,   -0.5f,    0.9375f, -2.375f,  1.5f,     0.6875f,
       0.3125f, -0.8125f, 0.125f,   1.375f,   -1.25f,  0.375f,   -1.6875f, 0.0f,    -1.5f,    0.4375f,  -1.5625f,
       0.0625f, -1.375f,  -0.0625f, -1.25f,   2.9375f, -2.375f,  -1.125f,  0.6875f, 2.25f,    -0.8125f, 3.25f,
       -0.375f, -0.75f,   0.5625f,  -1.5f,    -0.125f, -0.625f,  0.75f,    -2.0f,   -1.8125f, 0.25f,    0.5625f,
       -1.125f, 1.125f,   1.0625f,  -0.8125f, 0.3125f, 2.25f,    -0.875f,  3.25f,   0.375f,   -1.6875f, 0.0f,
       -1.5f,   0.4375f,  -1.875f,  -1.4375f, -2.0f,   -0.5625f, 0.1875f,  2.8125f, -1.125f});
}

TEST(ConvTransposeTest, OutputShapeDerivesThePads) {
  // Full output 7x7 cropped to output_shape 6x7: total pad 1 on h goes to the beginning (NOTSET).
  Attributes a;
  a.Set("strides", IntsAttr({2, 2}));
  a.Set("output_shape", IntsAttr({6, 7}));
  ExpectValues(
      testing::RunOp("ConvTranspose", 11, a, Inputs({1, 1, 3, 3}, {1, 2, 3, 3}, 0))[0], {1, 2, 6, 7},
      {2.25f,    -0.375f,  1.5f,     0.0625f, 1.5625f,  -0.3125f, 1.5625f,  -0.875f,  2.25f,    -0.75f,   -1.75f,
       -0.625f,  2.375f,   -0.9375f, -0.75f,  0.125f,   0.875f,   -0.25f,   0.125f,   0.1875f,  -0.9375f, 0.4375f,
       -1.625f,  -0.375f,  2.5f,     -0.25f,  -1.5f,    0.5625f,  1.125f,   -0.1875f, -0.5625f, 0.25f,    -0.5f,
       -0.125f,  0.625f,   -0.375f,  0.75f,   -0.0625f, -1.0f,    0.5f,     0.5f,     -0.375f,  -1.875f,  0.375f,
       -1.9375f, -0.0625f, -1.1875f, 0.3125f, -1.875f,  -0.375f,  2.75f,    0.125f,   -1.375f,  0.0f,     2.625f,
       -0.6875f, 0.625f,   -0.125f,  -0.5f,   0.25f,    -0.5625f, -0.1875f, 1.125f,   0.5625f,  -1.5f,    -0.25f,
       2.5f,     -0.375f,  -1.625f,  0.4375f, -0.9375f, 0.1875f,  0.125f,   -0.25f,   0.875f,   0.125f,   -0.75f,
       0.0f,     1.125f,   -0.1875f, -1.5f,   0.25f,    0.75f,    -0.125f});
}

TEST(ConvTransposeTest, OneDimensionalWithOutputPadding) {
  Attributes a;
  a.Set("strides", IntsAttr({3}));
  a.Set("pads", IntsAttr({1, 2}));
  a.Set("output_padding", IntsAttr({2}));
  // 3 * (4 - 1) + 2 + 3 - 3 = 11.
  ExpectValues(testing::RunOp("ConvTranspose", 11, a, Inputs({1, 2, 4}, {2, 2, 3}, 2))[0], {1, 2, 11},
               {-0.25f,  0.25f,  1.3125f,  0.625f,  1.5625f,  0.9375f, -0.125f,  0.4375f, 1.375f, 0.75f,  1.75f,
                -1.875f, 1.875f, -1.4375f, 0.3125f, -1.1875f, 1.9375f, -1.5625f, 1.4375f, -2.0f,  0.625f, -1.625f});
}

TEST(ConvTransposeTest, Float16ComputesInFloat32) {
  Attributes a;
  a.Set("strides", IntsAttr({2, 2}));
  a.Set("pads", IntsAttr({1, 1, 1, 1}));
  a.Set("output_padding", IntsAttr({1, 1}));
  std::vector<Tensor> in = Inputs({1, 2, 3, 3}, {2, 3, 3, 3}, 3);
  for (Tensor& t : in) t = testing::ToHalf(t);
  ExpectValues(
      testing::RunOp("ConvTranspose", 11, a, in, 1, true)[0], {1, 3, 6, 6},
      {-0.9375f, 3.0625f,  1.375f,  2.8125f,  -1.1875f, 3.3125f,  4.1875f,  -2.6875f, -0.9375f, 1.6875f,  4.5f,
       -1.4375f, 1.125f,   1.5f,    2.625f,   0.4375f,  0.875f,   0.1875f,  -0.625f,  4.75f,    2.375f,   -0.625f,
       -0.3125f, 2.875f,   2.375f,  -0.0625f, 0.625f,   0.5f,     2.125f,   1.125f,   0.8125f,  1.375f,   0.375f,
       2.125f,   0.75f,    1.375f,  1.75f,    -2.375f,  -0.9375f, -2.0625f, 2.0625f,  -2.375f,  2.5625f,  -3.0625f,
       -1.1875f, -4.0625f, 2.375f,  -2.75f,   -0.625f,  -0.625f,  -2.5f,    -1.125f,  -0.3125f, 0.625f,   -1.375f,
       0.4375f,  1.375f,   0.25f,   -1.5625f, -1.625f,  -2.1875f, -0.5f,    0.0f,     0.625f,   -1.875f,  -1.25f,
       0.3125f,  0.125f,   -1.875f, 0.625f,   0.0f,     0.625f,   3.625f,   -0.5f,    0.8125f,  -0.4375f, 3.6875f,
       -0.75f,   -0.6875f, 3.0625f, 2.625f,   2.375f,   -0.5625f, 3.25f,    0.875f,   2.125f,   0.5f,     1.375f,
       0.9375f,  1.875f,   2.75f,   -1.4375f, 0.375f,   -1.3125f, 2.875f,   1.1875f,  0.5625f,  1.5f,     1.0f,
       2.375f,   0.625f,   1.25f,   0.625f,   -0.3125f, 2.375f,   0.75f,    0.875f,   -0.125f},
      testing::kHalfTolerance, true);
}

TEST(ConvTransposeTest, ChannelMismatchIsAnInputError) {
  EXPECT_NE(testing::InputErrorOf([] {
              testing::RunOp("ConvTranspose", 11, Attributes(), Inputs({1, 2, 3, 3}, {3, 3, 3, 3}, 0));
            }),
            "");
}

}  // namespace
}  // namespace ptq
