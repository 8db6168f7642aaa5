// Tests of DFT (against a closed form, dft_length padding, onesided, inverse round trip), STFT
// (frames, window, errors) and MelWeightMatrix (filter shape, edge errors).
#include <gtest/gtest.h>

#include <cmath>

#include "tests/error_of.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::ErrorOf;
using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

constexpr double kTol = 1e-5;  // absolute, float32 sums of a few unit-size terms

void ExpectNear(const std::vector<float>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], kTol) << i;
}

// x = [1, 2, 3, 4] (real): X[k] = sum_j x_j e^(-2 pi i k j / 4) = [10, -2+2i, -2, -2-2i].
TEST(DFTOp, RealSignalOnesidedAndPadded) {
  const Tensor x = Tensor::FromVector<float>({1, 4, 1}, {1, 2, 3, 4});
  ExpectNear(ToVector<float>(RunOp("DFT", 17, Attributes(), {x})[0]), {10, 0, -2, 2, -2, 0, -2, -2});
  Attributes onesided;
  onesided.Set("onesided", IntAttr(1));
  const auto half = RunOp("DFT", 17, onesided, {x});
  EXPECT_EQ(half[0].shape(), (Shape{1, 3, 2}));
  // dft_length 2 truncates to [1, 2]: [3, -1].
  ExpectNear(ToVector<float>(RunOp("DFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(2)})[0]), {3, 0, -1, 0});
  // dft_length 5 zero-pads: X[0] is still 10.
  EXPECT_NEAR(ToVector<float>(RunOp("DFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(5)})[0])[0], 10, kTol);
}

TEST(DFTOp, InverseUndoesForward) {
  const Tensor x = Tensor::FromVector<float>({1, 3, 2}, {1, -1, 0.5f, 2, -3, 0.25f});
  const Tensor spectrum = RunOp("DFT", 17, Attributes(), {x})[0];
  Attributes inverse;
  inverse.Set("inverse", IntAttr(1));
  ExpectNear(ToVector<float>(RunOp("DFT", 17, inverse, {spectrum})[0]), {1, -1, 0.5, 2, -3, 0.25});
}

TEST(DFTOp, InputErrors) {
  EXPECT_NE(ErrorOf([&] { RunOp("DFT", 17, Attributes(), {Tensor(DataType::kFloat, {1, 4, 3})}); }), "");
  EXPECT_NE(ErrorOf([&] {
              RunOp("DFT", 17, Attributes(), {Tensor(DataType::kFloat, {1, 4, 1}), Tensor::Scalar<int64_t>(0)});
            }).find("the DFT length is 0"),
            std::string::npos);
  Attributes axis;
  axis.Set("axis", IntAttr(2));  // the real/imaginary axis is no signal axis
  EXPECT_NE(ErrorOf([&] { RunOp("DFT", 17, axis, {Tensor(DataType::kFloat, {1, 4, 1})}); }), "");
}

// Signal [1, 6] = 0..5 as 4-sample frames every 2 samples: 2 frames; bin 0 is each frame's sum.
TEST(STFTOp, FramesWindowAndBins) {
  const Tensor x = Tensor::FromVector<float>({1, 6, 1}, {0, 1, 2, 3, 4, 5});
  const auto y = RunOp("STFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(2), Tensor(), Tensor::Scalar<int64_t>(4)});
  EXPECT_EQ(y[0].shape(), (Shape{1, 2, 3, 2}));
  const std::vector<float> v = ToVector<float>(y[0]);
  EXPECT_NEAR(v[0], 6, kTol);   // 0 + 1 + 2 + 3
  EXPECT_NEAR(v[6], 14, kTol);  // 2 + 3 + 4 + 5
  const Tensor window = Tensor::FromVector<float>({4}, {0, 1, 1, 0});
  const auto w = RunOp("STFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(2), window});
  EXPECT_NEAR(ToVector<float>(w[0])[6], 7, kTol);  // 3 + 4
  EXPECT_NE(ErrorOf([&] { RunOp("STFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(0), window}); }).find("frame_step 0"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] {
              RunOp("STFT", 17, Attributes(), {x, Tensor::Scalar<int64_t>(1), window, Tensor::Scalar<int64_t>(3)});
            }).find("'window'"),
            std::string::npos);
}

std::vector<Tensor> MelInputs(int64_t mels, float upper) {
  return {Tensor::Scalar<int64_t>(mels), Tensor::Scalar<int64_t>(16), Tensor::Scalar<int64_t>(8000),
          Tensor::Scalar<float>(0), Tensor::Scalar<float>(upper)};
}

TEST(MelWeightMatrixOp, TrianglesPeakAtOne) {
  const auto y = RunOp("MelWeightMatrix", 17, Attributes(), MelInputs(3, 4000));
  ASSERT_EQ(y[0].shape(), (Shape{9, 3}));
  const std::vector<float> w = ToVector<float>(y[0]);
  for (int m = 0; m < 3; ++m) {
    float peak = 0;
    for (int k = 0; k < 9; ++k) {
      EXPECT_GE(w[static_cast<size_t>(k * 3 + m)], 0.0f);
      EXPECT_LE(w[static_cast<size_t>(k * 3 + m)], 1.0f);
      peak = std::max(peak, w[static_cast<size_t>(k * 3 + m)]);
    }
    EXPECT_EQ(peak, 1.0f) << "filter " << m;
  }
}

TEST(MelWeightMatrixOp, EdgesBeyondTheSpectrumAreRefused) {
  EXPECT_NE(ErrorOf([&] { RunOp("MelWeightMatrix", 17, Attributes(), MelInputs(3, 20000)); }).find("mel edge"),
            std::string::npos);
  EXPECT_NE(ErrorOf([&] { RunOp("MelWeightMatrix", 17, Attributes(), MelInputs(0, 4000)); }), "");
}

}  // namespace
}  // namespace ptq
