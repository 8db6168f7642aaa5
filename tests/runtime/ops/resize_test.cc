// Tests of Resize and Upsample against values computed independently (numpy or by hand).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::FloatsAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

// Linear weights are float32 products of coordinates; numpy values are rounded to 7 digits.
constexpr float kTol = 1e-6f;

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], kTol * std::max(1.0f, std::fabs(expected[i]))) << "element " << i;
  }
}

Tensor Scales(const std::vector<float>& s) { return Tensor::FromVector<float>({static_cast<int64_t>(s.size())}, s); }
Tensor Sizes(const std::vector<int64_t>& s) { return Tensor::FromVector<int64_t>({static_cast<int64_t>(s.size())}, s); }
const Tensor kNone;  // an omitted optional input

Tensor Row1234() { return Tensor::FromVector<float>({1, 1, 1, 4}, {1, 2, 3, 4}); }

// half_pixel, 4 -> 2: input coordinates 2j + 0.5 = 0.5 and 2.5, both halfway.
TEST(ResizeOp, NearestHalfwayRoundsDownWithRoundPreferFloor) {
  Attributes attrs;
  attrs.Set("nearest_mode", StringAttr("round_prefer_floor"));
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {Row1234(), kNone, Scales({1, 1, 1, 0.5f})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 3}));
}

TEST(ResizeOp, NearestHalfwayRoundsUpWithRoundPreferCeil) {
  Attributes attrs;
  attrs.Set("nearest_mode", StringAttr("round_prefer_ceil"));
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {Row1234(), kNone, Scales({1, 1, 1, 0.5f})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{2, 4}));
}

// asymmetric, 4 -> 8: coordinates j / 2; halfway at odd j; indices clamp at 3.
TEST(ResizeOp, NearestUpsampleAsymmetricBothRoundings) {
  Attributes attrs;
  attrs.Set("coordinate_transformation_mode", StringAttr("asymmetric"));
  attrs.Set("nearest_mode", StringAttr("round_prefer_floor"));
  std::vector<Tensor> y = RunOp("Resize", 11, attrs, {Row1234(), Tensor(), Tensor(), Sizes({1, 1, 1, 8})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 1, 2, 2, 3, 3, 4, 4}));
  attrs.Set("nearest_mode", StringAttr("round_prefer_ceil"));
  y = RunOp("Resize", 11, attrs, {Row1234(), Tensor(), Tensor(), Sizes({1, 1, 1, 8})});
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 2, 2, 3, 3, 4, 4, 4}));
}

Tensor Square1234() { return Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}); }

// numpy: W @ x @ W.T with W the 2 -> 4 half_pixel weights (coordinates clamped to [0, 1]).
TEST(ResizeOp, LinearUpsampleHalfPixel) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {Square1234(), kNone, Scales({1, 1, 2, 2})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 4, 4}));
  ExpectNear(ToVector<float>(y[0]), {1, 1.25f, 1.75f, 2, 1.5f, 1.75f, 2.25f, 2.5f, 2.5f, 2.75f, 3.25f, 3.5f, 3, 3.25f,
                                     3.75f, 4});
}

// numpy: the same with align_corners weights (coordinates j / 3).
TEST(ResizeOp, LinearUpsampleAlignCorners) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  attrs.Set("coordinate_transformation_mode", StringAttr("align_corners"));
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {Square1234(), kNone, Scales({1, 1, 2, 2})});
  ExpectNear(ToVector<float>(y[0]), {1, 1.333333f, 1.666667f, 2, 1.666667f, 2, 2.333333f, 2.666667f, 2.333333f,
                                     2.666667f, 3, 3.333333f, 3, 3.333333f, 3.666667f, 4});
}

// numpy: scales 0.6 on [[1, 2, 3, 4], [5, 6, 7, 8]] -> 1 x 2 (half_pixel).
TEST(ResizeOp, LinearDownsampleHalfPixel) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  Tensor x = Tensor::FromVector<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {x, kNone, Scales({1, 1, 0.6f, 0.6f})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 1, 2}));
  ExpectNear(ToVector<float>(y[0]), {2.666667f, 4.333333f});
}

// numpy: trilinear 2x2x2 -> 3x3x3 with align_corners: the midpoints of arange(8).
TEST(ResizeOp, LinearIsMultilinearOverEveryResizedAxis) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  attrs.Set("coordinate_transformation_mode", StringAttr("align_corners"));
  Tensor x = Tensor::FromVector<float>({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {x, kNone, kNone, Sizes({3, 3, 3})});
  ExpectNear(ToVector<float>(y[0]), {0, 0.5f, 1, 1, 1.5f, 2, 2, 2.5f, 3, 2, 2.5f, 3, 3, 3.5f, 4, 4, 4.5f, 5, 4, 4.5f, 5,
                                     5, 5.5f, 6, 6, 6.5f, 7});
}

// Opset 18: sizes for the listed axes only; not_larger keeps the aspect ratio with the smaller
// scale (min(3/2, 8/4) = 1.5: 2 x 4 -> 3 x 6).
TEST(ResizeOp, Opset18AxesWithKeepAspectRatio) {
  Attributes attrs;
  attrs.Set("axes", IntsAttr({2, 3}));
  attrs.Set("keep_aspect_ratio_policy", StringAttr("not_larger"));
  attrs.Set("coordinate_transformation_mode", StringAttr("asymmetric"));
  attrs.Set("nearest_mode", StringAttr("floor"));
  Tensor x = Tensor::FromVector<float>({1, 1, 2, 4}, {1, 2, 3, 4, 5, 6, 7, 8});
  std::vector<Tensor> y = RunOp("Resize", 18, attrs, {x, kNone, kNone, Sizes({3, 8})});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 3, 6}));
  // rows floor(i / 1.5) = 0, 0, 1; columns floor(j / 1.5) = 0, 0, 1, 2, 2, 3
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 1, 2, 3, 3, 4, 1, 1, 2, 3, 3, 4, 5, 5, 6, 7, 7, 8}));
}

// tf_crop_and_resize: roi [0, 0.5] of a length-5 row with 3 outputs samples 0, 1, 2; roi [0.75, 1.5]
// reaches outside (coordinates 3, 6) and gives the extrapolation value there.
TEST(ResizeOp, TfCropAndResizeExtrapolates) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  attrs.Set("coordinate_transformation_mode", StringAttr("tf_crop_and_resize"));
  attrs.Set("extrapolation_value", FloatAttr(-9.0f));
  Tensor x = Tensor::FromVector<float>({1, 5}, {10, 20, 30, 40, 50});
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {x, Scales({0, 0, 1, 0.5f}), kNone, Sizes({1, 3})});
  ExpectNear(ToVector<float>(y[0]), {10, 20, 30});
  y = RunOp("Resize", 13, attrs, {x, Scales({0, 0.75f, 1, 1.5f}), kNone, Sizes({1, 2})});
  ExpectNear(ToVector<float>(y[0]), {40, -9});
}

TEST(ResizeOp, NearestCopiesIntegerElements) {
  Tensor x = Tensor::FromVector<uint8_t>({2, 2}, {1, 2, 3, 4});
  std::vector<Tensor> y = RunOp("Resize", 13, Attributes(), {x, kNone, Scales({1, 2})});
  EXPECT_EQ(ToVector<uint8_t>(y[0]), (std::vector<uint8_t>{1, 1, 2, 2, 3, 3, 4, 4}));
}

// Cubic, half_pixel, scale 2 on [1, 2, 3, 4]: output 0 sits at v = -0.25 (i = -1, s = 0.75), taps
// -2 .. 1 clamped to 0, 0, 0, 1 with the A = -0.75 weights (-0.03515625, 0.26171875, 0.87890625,
// -0.10546875); exclude_outside drops the two taps left of the input and renormalises the rest.
TEST(ResizeOp, CubicWeightsEdgeClampAndExcludeOutside) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("cubic"));
  std::vector<Tensor> y = RunOp("Resize", 13, attrs, {Row1234(), kNone, Scales({1, 1, 1, 2})});
  ASSERT_EQ(y[0].shape(), (Shape{1, 1, 1, 8}));
  EXPECT_NEAR(ToVector<float>(y[0])[0], 1.10546875 - 2 * 0.10546875, kTol);
  attrs.Set("exclude_outside", IntAttr(1));
  y = RunOp("Resize", 13, attrs, {Row1234(), kNone, Scales({1, 1, 1, 2})});
  EXPECT_NEAR(ToVector<float>(y[0])[0], (0.87890625 - 2 * 0.10546875) / (0.87890625 - 0.10546875), kTol);
  // An integer coordinate takes that input element alone (align_corners, 4 -> 7: v = 0, 0.5, 1, ...).
  Attributes aligned;
  aligned.Set("mode", StringAttr("cubic"));
  aligned.Set("coordinate_transformation_mode", StringAttr("align_corners"));
  y = RunOp("Resize", 13, aligned, {Row1234(), kNone, kNone, Sizes({1, 1, 1, 7})});
  EXPECT_NEAR(ToVector<float>(y[0])[2], 2, kTol);
  EXPECT_NEAR(ToVector<float>(y[0])[6], 4, kTol);
  EXPECT_THROW(RunOp("Upsample", 9, aligned, {Row1234(), Scales({1, 1, 1, 2})}), Error);
}

// Upsample: output[i] = input[floor(i / scale)] (the ONNX Upsample example).
TEST(UpsampleOp, NearestRepeatsElements) {
  Attributes attrs;
  attrs.Set("scales", FloatsAttr({1, 1, 2, 3}));
  std::vector<Tensor> y = RunOp("Upsample", 7, attrs, {Square1234()});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 4, 6}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{1, 1, 1, 2, 2, 2, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 3, 3, 3,
                                                        4, 4, 4}));
}

// Upsample linear is asymmetric: coordinates j / 2 on [1, 2, 3, 4] (clamped at 3).
TEST(UpsampleOp, Opset9LinearIsAsymmetric) {
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  std::vector<Tensor> y = RunOp("Upsample", 9, attrs, {Row1234(), Scales({1, 1, 1, 2})});
  ExpectNear(ToVector<float>(y[0]), {1, 1.5f, 2, 2.5f, 3, 3.5f, 4, 4});
}

}  // namespace
}  // namespace ptq
