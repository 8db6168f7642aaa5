// Tests of GridSample (corner alignment, each padding mode far outside the image, NaN positions),
// RoiAlign (a box inside one pixel, max mode, batch index errors) and MaxUnpool (inferred and given
// output shapes, indices outside the output).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::FloatAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;
using testing::StringAttr;
using testing::ToVector;

constexpr double kTol = 1e-6;  // relative, float32 interpolation of small integers

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], kTol * std::max(1.0, std::fabs(want[i]))) << i;
}

// X is 1x1x2x2 = [[1, 2], [3, 4]].
Tensor Image() { return Tensor::FromVector<float>({1, 1, 2, 2}, {1, 2, 3, 4}); }
Tensor Grid(const std::vector<float>& xy) {
  return Tensor::FromVector<float>({1, 1, static_cast<int64_t>(xy.size() / 2), 2}, xy);
}

TEST(GridSampleOp, CornersCentreAndAlignment) {
  Attributes aligned;
  aligned.Set("align_corners", IntAttr(1));
  // With aligned corners (-1, -1) is pixel (0, 0) and (1, 1) pixel (1, 1); (0, 0) is the mean.
  ExpectNear(ToVector<float>(RunOp("GridSample", 16, aligned, {Image(), Grid({-1, -1, 1, 1, 0, 0, 1, -1})})[0]),
             {1, 4, 2.5, 2});
  // Without, (-1, -1) is the outer corner of pixel (0, 0): half outside on each axis -> 1 / 4 with zeros.
  ExpectNear(ToVector<float>(RunOp("GridSample", 16, Attributes(), {Image(), Grid({-1, -1, -0.5f, -0.5f})})[0]),
             {0.25, 1});
}

TEST(GridSampleOp, PaddingModesFarOutsideAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor grid = Grid({1e30f, 0.5f, -7.0f, -0.5f, nan, 0});
  Attributes a;
  a.Set("mode", StringAttr("nearest"));
  ExpectNear(ToVector<float>(RunOp("GridSample", 16, a, {Image(), grid})[0]), {0, 0, 0});
  a.Set("padding_mode", StringAttr("border"));
  // Far right of row 1 is pixel (1, 1) = 4; far left of row 0 is 1.
  const std::vector<float> border = ToVector<float>(RunOp("GridSample", 16, a, {Image(), grid})[0]);
  EXPECT_EQ(border[0], 4);
  EXPECT_EQ(border[1], 1);
  a.Set("padding_mode", StringAttr("reflection"));
  a.Set("mode", StringAttr("bicubic"));
  for (float v : ToVector<float>(RunOp("GridSample", 16, a, {Image(), grid})[0])) EXPECT_FALSE(std::isinf(v));
  a.Set("mode", StringAttr("area"));
  EXPECT_NE(ErrorOf([&] { RunOp("GridSample", 16, a, {Image(), grid}); }).find("'mode'"), std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("GridSample", 16, Attributes(), {Image(), Tensor(DataType::kFloat, {1, 1, 1, 3})});
            }),
            "");
}

// X 1x1x4x4 of 0..15, output 1x1, half_pixel: the box (1, 1)-(3, 3) averages the 2x2 samples at its
// sub-grid centres, which bilinearly interpolate to the mean of the four centre pixels.
TEST(RoiAlignOp, AverageAndMaxOfABox) {
  std::vector<float> img(16);
  for (size_t i = 0; i < img.size(); ++i) img[i] = static_cast<float>(i);
  const Tensor x = Tensor::FromVector<float>({1, 1, 4, 4}, img);
  const Tensor rois = Tensor::FromVector<float>({1, 4}, {1, 1, 3, 3});
  const Tensor batch = Tensor::FromVector<int64_t>({1}, {0});
  ExpectNear(ToVector<float>(RunOp("RoiAlign", 16, Attributes(), {x, rois, batch})[0]), {(5 + 6 + 9 + 10) / 4.0});
  Attributes max;
  max.Set("mode", StringAttr("max"));
  max.Set("sampling_ratio", IntAttr(1));
  // One sample at (y, x) = (1.5, 1.5): the largest weighted corner is 0.25 * 10.
  ExpectNear(ToVector<float>(RunOp("RoiAlign", 16, max, {x, rois, batch})[0]), {2.5});
  EXPECT_NE(ErrorOf([&] {
              RunOp("RoiAlign", 16, Attributes(), {x, rois, Tensor::FromVector<int64_t>({1}, {1})});
            }).find("batch_indices[0] is 1"),
            std::string::npos);
  Attributes huge;
  huge.Set("output_height", IntAttr(int64_t{1} << 40));
  EXPECT_NE(ErrorOf([&] { RunOp("RoiAlign", 16, huge, {x, rois, batch}); }), "");
}

TEST(MaxUnpoolOp, InferredAndGivenShapes) {
  Attributes a;
  a.Set("kernel_shape", IntsAttr({2}));
  a.Set("strides", IntsAttr({2}));
  const Tensor x = Tensor::FromVector<float>({1, 1, 2}, {5, 7});
  const Tensor idx = Tensor::FromVector<int64_t>({1, 1, 2}, {1, 2});
  const auto y = RunOp("MaxUnpool", 11, a, {x, idx});
  EXPECT_EQ(y[0].shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(ToVector<float>(y[0]), (std::vector<float>{0, 5, 7, 0}));
  const auto padded = RunOp("MaxUnpool", 11, a, {x, idx, Tensor::FromVector<int64_t>({3}, {1, 1, 6})});
  EXPECT_EQ(ToVector<float>(padded[0]), (std::vector<float>{0, 5, 7, 0, 0, 0}));
  EXPECT_NE(ErrorOf([&] {
              RunOp("MaxUnpool", 11, a, {x, Tensor::FromVector<int64_t>({1, 1, 2}, {1, 4})});
            }).find("index 4 in input 'I' is outside"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOp("MaxUnpool", 11, a, {x, idx, Tensor::FromVector<int64_t>({3}, {1, 1, 3})}); }), "");
  a.Set("strides", IntsAttr({int64_t{1} << 62}));
  EXPECT_NE(ErrorOf([&] { RunOp("MaxUnpool", 11, a, {x, idx}); }), "");
}

}  // namespace
}  // namespace ptq
