// Tests of Resize and Upsample against values computed independently (numpy or by hand).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/shape_util.h"
#include "runtime/threading.h"
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

// A tensor of `shape` with distinct values i * 1e-4 - 2 (apart by far more than their rounding; smooth, so that
// float32 coordinates move an interpolated value by little).
Tensor Ramp(const Shape& shape) {
  Tensor t(DataType::kFloat, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.size(); ++i) p[i] = static_cast<float>(i) * 1e-4f - 2.0f;
  return t;
}

// Resize on one and on two threads: the same bits.
std::vector<float> ResizeOnThreads(int threads, const Attributes& attrs, const std::vector<Tensor>& inputs) {
  SetNumThreads(threads);
  std::vector<float> y = ToVector<float>(RunOp("Resize", 13, attrs, inputs)[0]);
  SetNumThreads(1);
  return y;
}

// Outputs large enough to be shared by threads (over 64 K values): a channels-last image upsampled 2x (its
// channels copied as runs) and a channels-first one downsampled, each value checked against the input element
// asymmetric / floor picks, y[.., h, w, ..] = x[.., floor(h / s), floor(w / s), ..].
TEST(ResizeOp, LargeNearestPicksTheFloorElementOnAnyThreads) {
  Attributes attrs;
  attrs.Set("coordinate_transformation_mode", StringAttr("asymmetric"));
  attrs.Set("nearest_mode", StringAttr("floor"));
  const Tensor nhwc = Ramp({2, 33, 47, 24});
  const std::vector<float> x = ToVector<float>(nhwc);
  for (int threads : {1, 2}) {
    const std::vector<float> y = ResizeOnThreads(threads, attrs, {nhwc, kNone, Scales({1, 2, 2, 1})});
    ASSERT_EQ(y.size(), size_t{2 * 66 * 94 * 24});
    size_t bad = 0;
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t h = 0; h < 66; ++h)
        for (int64_t w = 0; w < 94; ++w)
          for (int64_t c = 0; c < 24; ++c) {
            const float want = x[static_cast<size_t>(((n * 33 + h / 2) * 47 + w / 2) * 24 + c)];
            bad += y[static_cast<size_t>(((n * 66 + h) * 94 + w) * 24 + c)] != want;
          }
    EXPECT_EQ(bad, 0u) << threads << " threads";
  }
  const Tensor nchw = Ramp({2, 5, 160, 150});
  const std::vector<float> xc = ToVector<float>(nchw);
  for (int threads : {1, 2}) {
    const std::vector<float> y = ResizeOnThreads(threads, attrs, {nchw, kNone, Scales({1, 1, 0.5f, 0.5f})});
    ASSERT_EQ(y.size(), size_t{2 * 5 * 80 * 75});
    size_t bad = 0;
    for (int64_t p = 0; p < 10; ++p)
      for (int64_t h = 0; h < 80; ++h)
        for (int64_t w = 0; w < 75; ++w) {
          bad += y[static_cast<size_t>((p * 80 + h) * 75 + w)] != xc[static_cast<size_t>((p * 160 + 2 * h) * 150 + 2 * w)];
        }
    EXPECT_EQ(bad, 0u) << threads << " threads";
  }
}

// Bilinear half_pixel resizes of channels-first and channels-last images to odd sizes, against a bilinear
// interpolation in double (coordinates (j + 0.5) * in / out - 0.5 clamped to [0, in - 1]; ptq computes them in
// float32 from the float scale, hence the tolerance), and the same bits on one and two threads.
TEST(ResizeOp, LargeLinearMatchesBilinearOnAnyThreads) {
  constexpr double kLinearTol = 2e-5;  // relative to max(1, |value|): float32 coordinates and weights
  Attributes attrs;
  attrs.Set("mode", StringAttr("linear"));
  const auto coord = [](int64_t j, int64_t in, int64_t out, int64_t* i0, int64_t* i1, double* w1) {
    double c = (static_cast<double>(j) + 0.5) * static_cast<double>(in) / static_cast<double>(out) - 0.5;
    c = std::min(std::max(c, 0.0), static_cast<double>(in - 1));
    *i0 = static_cast<int64_t>(c);
    *i1 = std::min(*i0 + 1, in - 1);
    *w1 = c - static_cast<double>(*i0);
  };
  struct Case {
    Shape in, out;
    int h_axis;  // H and W are axes h_axis and h_axis + 1
  };
  for (const Case& k : {Case{{1, 3, 70, 90}, {1, 3, 151, 203}, 2}, Case{{2, 37, 41, 16}, {2, 80, 97, 16}, 1}}) {
    const Tensor x = Ramp(k.in);
    const std::vector<float> xv = ToVector<float>(x);
    const std::vector<float> y1 = ResizeOnThreads(1, attrs, {x, kNone, kNone, Sizes(k.out)});
    const std::vector<float> y2 = ResizeOnThreads(2, attrs, {x, kNone, kNone, Sizes(k.out)});
    ASSERT_EQ(y1.size(), static_cast<size_t>(ShapeSize(k.out)));
    EXPECT_TRUE(y1 == y2) << "one and two threads differ";
    const int64_t H = k.in[k.h_axis], W = k.in[k.h_axis + 1], OH = k.out[k.h_axis], OW = k.out[k.h_axis + 1];
    const int64_t outer = k.h_axis == 2 ? k.in[0] * k.in[1] : k.in[0];
    const int64_t inner = k.h_axis == 2 ? 1 : k.in[3];
    double worst = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t h = 0; h < OH; ++h)
        for (int64_t w = 0; w < OW; ++w)
          for (int64_t c = 0; c < inner; ++c) {
            int64_t h0, h1, w0, w1;
            double a, b;
            coord(h, H, OH, &h0, &h1, &a);
            coord(w, W, OW, &w0, &w1, &b);
            const auto at = [&](int64_t ih, int64_t iw) {
              return static_cast<double>(xv[static_cast<size_t>(((o * H + ih) * W + iw) * inner + c)]);
            };
            const double want = (1 - a) * ((1 - b) * at(h0, w0) + b * at(h0, w1)) + a * ((1 - b) * at(h1, w0) + b * at(h1, w1));
            const double got = y1[static_cast<size_t>(((o * OH + h) * OW + w) * inner + c)];
            worst = std::max(worst, std::fabs(got - want) / std::max(1.0, std::fabs(want)));
          }
    EXPECT_LT(worst, kLinearTol) << ShapeToString(k.in) << " -> " << ShapeToString(k.out);
  }
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
