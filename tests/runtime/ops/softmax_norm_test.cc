// Tests of Softmax, LogSoftmax, LayerNormalization, BatchNormalization and InstanceNormalization
// against values computed independently with numpy (float64, rounded to 7 digits).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "runtime/float16.h"
#include "runtime/kernels/vector/vector_math.h"
#include "runtime/threading.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::IntAttr;
using testing::RunOp;
using testing::ToVector;

// Float32 kernels against float64 numpy: a few ulp of exp/sqrt plus the 7-digit rounding.
constexpr float kTol = 2e-6f;

void ExpectNear(const std::vector<float>& actual, const std::vector<float>& expected, float tol = kTol) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    EXPECT_NEAR(actual[i], expected[i], tol * std::max(1.0f, std::fabs(expected[i]))) << "element " << i;
  }
}

Tensor X223() {
  return Tensor::FromVector<float>({2, 2, 3}, {0.5f, 1.0f, -2.0f, 3.0f, 0.0f, 1.5f, -1.0f, 2.0f, 0.25f, 4.0f, -0.5f, 1.0f});
}

// numpy: softmax of x.reshape(2, 6) along axis 1 (opset 11 coerces to 2-D at axis 1).
TEST(SoftmaxOp, Opset11CoercesTrailingBlockTo2D) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("Softmax", 11, attrs, {X223()});
  EXPECT_EQ(y[0].shape(), (Shape{2, 2, 3}));
  ExpectNear(ToVector<float>(y[0]), {0.05483023f, 0.09039977f, 0.00450074f, 0.667969f, 0.03325622f, 0.149044f,
                                     0.005493696f, 0.1103438f, 0.01917488f, 0.8153368f, 0.009057574f, 0.04059323f});
}

// numpy: softmax of x along axis 1 only (opset 13): a different result from the same axis at 11.
TEST(SoftmaxOp, Opset13NormalizesAlongOneAxis) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("Softmax", 13, attrs, {X223()});
  ExpectNear(ToVector<float>(y[0]), {0.07585818f, 0.7310586f, 0.02931223f, 0.9241418f, 0.2689414f, 0.9706878f,
                                     0.006692851f, 0.9241418f, 0.3208213f, 0.9933071f, 0.07585818f, 0.6791787f});
}

// numpy: softmax of x along axis -1 (the opset 13 default).
TEST(SoftmaxOp, Opset13DefaultsToLastAxis) {
  std::vector<Tensor> y = RunOp("Softmax", 13, Attributes(), {X223()});
  ExpectNear(ToVector<float>(y[0]), {0.3661922f, 0.6037489f, 0.03005889f, 0.785597f, 0.03911257f, 0.1752904f,
                                     0.0406903f, 0.8172866f, 0.1420231f, 0.9425994f, 0.01047133f, 0.04692926f});
}

TEST(SoftmaxOp, LargeValuesDoNotOverflow) {
  std::vector<Tensor> y = RunOp("Softmax", 13, Attributes(), {Tensor::FromVector<float>({3}, {1000.0f, 1000.0f, -1000.0f})});
  ExpectNear(ToVector<float>(y[0]), {0.5f, 0.5f, 0.0f});
}

TEST(SoftmaxOp, Float16ComputesInFloat) {
  std::vector<uint16_t> h;
  for (float v : {0.5f, 1.0f, -2.0f}) h.push_back(FloatToHalf(v));
  std::vector<Tensor> y = RunOp("Softmax", 13, Attributes(), {Tensor::FromVector<uint16_t>({3}, h, DataType::kFloat16)});
  ASSERT_EQ(y[0].dtype(), DataType::kFloat16);
  ExpectNear(y[0].ToFloatVector(), {0.3661922f, 0.6037489f, 0.03005889f}, 1e-3f);
}

// numpy: log(softmax(x, axis=1)).
TEST(LogSoftmaxOp, AlongMiddleAxis) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(1));
  std::vector<Tensor> y = RunOp("LogSoftmax", 13, attrs, {X223()});
  ExpectNear(ToVector<float>(y[0]), {-2.57889f, -0.3132617f, -3.52975f, -0.07888973f, -1.313262f, -0.02975042f,
                                     -5.006715f, -0.07888973f, -1.136871f, -0.006715348f, -2.57889f, -0.386871f});
}

// The strided kernel (softmax axis not innermost) against the row kernel on the transposed input.
TEST(SoftmaxOp, StridedAndRowKernelsAgree) {
  std::vector<float> v(3 * 5 * 7);
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.7f * static_cast<float>(i)) * 4.0f;
  const Tensor x = Tensor::FromVector<float>({3, 5, 7}, v);
  Attributes axis1, perm;
  axis1.Set("axis", IntAttr(1));
  perm.Set("perm", testing::IntsAttr({0, 2, 1}));
  const Tensor strided = RunOp("Softmax", 13, axis1, {x})[0];
  const Tensor xt = RunOp("Transpose", 13, perm, {x})[0];
  const Tensor rows = RunOp("Transpose", 13, perm, {RunOp("Softmax", 13, Attributes(), {xt})[0]})[0];
  ExpectNear(ToVector<float>(strided), ToVector<float>(rows), 1e-6f);
}

// Along a middle axis whose inner extent spans whole vectors and a tail (2 x 6 x 21), the strided kernel (its AVX2
// clone on AVX2 CPUs) gives the bits of its formulas evaluated one value at a time here: m = the max over the axis,
// e = VecExp(x - m), s = the sum of e in axis order, y = e * (1 / s), VecExp's fused multiply-adds included.
TEST(SoftmaxOp, StridedKernelGivesTheScalarBits) {
  const int64_t outer = 2, n = 6, inner = 21;
  std::vector<float> v(static_cast<size_t>(outer * n * inner));
  for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(0.37f * static_cast<float>(i)) * 9.0f;
  Attributes axis1;
  axis1.Set("axis", IntAttr(1));
  const std::vector<float> y =
      ToVector<float>(RunOp("Softmax", 13, axis1, {Tensor::FromVector<float>({outer, n, inner}, v)})[0]);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t r) { return static_cast<size_t>((o * n + r) * inner + i); };
      float m = -INFINITY, s = 0.0f;
      for (int64_t r = 0; r < n; ++r) m = v[at(r)] > m ? v[at(r)] : m;
      for (int64_t r = 0; r < n; ++r) s += VecExp(v[at(r)] - m);
      const float inv = 1.0f / s;
      for (int64_t r = 0; r < n; ++r) {
        ASSERT_EQ(y[at(r)], VecExp(v[at(r)] - m) * inv) << "o " << o << " r " << r << " i " << i;
      }
    }
  }
}

Tensor X234() {
  return Tensor::FromVector<float>({2, 3, 4}, {1, 2, 4, -1, 0.5f, 3, 2, 2, -3, 1, 0, 6, 2, 1, 1, 5, -2, 0.5f, 0.25f, 3, 1, -1, 2, 7});
}

// numpy: m = x.mean(-1, keepdims); inv = 1/sqrt(((x-m)**2).mean(-1, keepdims) + 1e-5);
// y = (x - m) * inv * scale + bias
TEST(LayerNormalizationOp, LastAxisWithMeanAndInvStdDev) {
  Tensor scale = Tensor::FromVector<float>({4}, {1.0f, 0.5f, 2.0f, -1.0f});
  Tensor bias = Tensor::FromVector<float>({4}, {0.1f, 0.2f, 0.3f, 0.4f});
  std::vector<Tensor> y = RunOp("LayerNormalization", 17, Attributes(), {X234(), scale, bias}, 3);
  ExpectNear(ToVector<float>(y[0]),
             {-0.1773497f, 0.3386748f, 3.073497f, 1.786748f, -1.440298f, 0.8301221f, 0.5800543f, 0.2599729f,
              -1.134426f, 0.2f, -0.3172131f, -1.143033f, -0.05249829f, -0.1812457f, -1.224983f, -1.277481f,
              -1.276278f, 0.2176446f, 0.08826494f, -1.046856f, -0.3240942f, -0.3513225f, 0.1303623f, -1.211558f});
  EXPECT_EQ(y[1].shape(), (Shape{2, 3, 1}));
  ExpectNear(ToVector<float>(y[1]), {1.5f, 1.875f, 1.0f, 2.25f, 0.4375f, 2.25f});
  EXPECT_EQ(y[2].shape(), (Shape{2, 3, 1}));
  ExpectNear(ToVector<float>(y[2]), {0.5546993f, 1.120217f, 0.3086066f, 0.6099931f, 0.5646268f, 0.3392754f});
}

// numpy: the same over axes (-2, -1) with a [3, 4] scale and no bias.
TEST(LayerNormalizationOp, LastTwoAxesWithoutBias) {
  Attributes attrs;
  attrs.Set("axis", IntAttr(-2));
  Tensor scale = Tensor::FromVector<float>({3, 4}, {1.0f, 0.5f, 2.0f, -1.0f, 0.5f, 1, 1, 2, 1, 1, 1, 1});
  std::vector<Tensor> y = RunOp("LayerNormalization", 17, attrs, {X234(), scale}, 3);
  ExpectNear(ToVector<float>(y[0]),
             {-0.2054369f, 0.1213945f, 2.278482f, 1.101889f, -0.2147749f, 0.6910149f, 0.242789f, 0.4855781f,
              -1.998341f, -0.2054369f, -0.6536628f, 2.035693f, 0.1501018f, -0.1368575f, -0.5474302f, -1.421553f,
              -0.7725829f, -0.4856236f, -0.5915778f, 1.147838f, -0.2737151f, -1.121349f, 0.1501018f, 2.269186f});
  EXPECT_EQ(y[1].shape(), (Shape{2, 1, 1}));
  ExpectNear(ToVector<float>(y[1]), {1.458333f, 1.645833f});
  ExpectNear(ToVector<float>(y[2]), {0.4482259f, 0.4238169f});
}

Tensor BatchNormX() {
  std::vector<float> v(16);
  for (int i = 0; i < 16; ++i) v[static_cast<size_t>(i)] = 0.5f * static_cast<float>(i) - 3.0f;
  return Tensor::FromVector<float>({2, 2, 2, 2}, v);
}

// numpy: y = s * (x - mean) / sqrt(var + 1e-3) + b per channel of axis 1.
const std::vector<float> kBatchNormSpatial = {-1.249813f, -0.8748594f, -0.4999063f, -0.1249531f, 3.994018f, 3.495015f,
                                              2.996012f,  2.497009f,   1.749813f,  2.124766f,   2.499719f, 2.874672f,
                                              0.00199402f, -0.497009f, -0.996012f, -1.495015f};

// Large enough for threads (over 64 K values), channels first and channels last: each value is x * a + b with
// a = scale / sqrt(var + epsilon) and b = B - mean * a rounded to float (the op's definition, computed here in
// double), within float rounding, and the same bits on one and two threads.
TEST(BatchNormalizationOp, LargeTensorsMatchTheFormulaOnAnyThreads) {
  constexpr double kTol = 1e-6;  // relative to max(1, |y|): float32 products and sums
  const int64_t N = 2, C = 24, H = 40, W = 35;
  std::vector<float> xv(static_cast<size_t>(N * C * H * W)), scale(C), bias(C), mean(C), var(C);
  for (size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>((i * 7919) % 2003) * 0.01f - 10.0f;
  for (int64_t c = 0; c < C; ++c) {
    scale[static_cast<size_t>(c)] = 0.5f + 0.1f * static_cast<float>(c);
    bias[static_cast<size_t>(c)] = -1.0f + 0.05f * static_cast<float>(c);
    mean[static_cast<size_t>(c)] = 0.3f * static_cast<float>(c % 5);
    var[static_cast<size_t>(c)] = 0.2f + 0.3f * static_cast<float>(c % 7);
  }
  const auto param = [&](const std::vector<float>& v) { return Tensor::FromVector<float>({C}, v); };
  for (bool last : {false, true}) {
    Attributes attrs;
    if (last) attrs.Set("channels_last", IntAttr(1));
    const Shape shape = last ? Shape{N, H, W, C} : Shape{N, C, H, W};
    const Tensor x = Tensor::FromVector<float>(shape, xv);
    std::vector<float> y[2];
    for (int threads : {1, 2}) {
      SetNumThreads(threads);
      y[threads - 1] = ToVector<float>(RunOp("BatchNormalization", last ? 1 : 15, attrs,
                                             {x, param(scale), param(bias), param(mean), param(var)},
                                             1, last, last ? "ptq.fused" : "")[0]);
      SetNumThreads(1);
    }
    EXPECT_TRUE(y[0] == y[1]) << (last ? "channels last" : "channels first") << ": one and two threads differ";
    double worst = 0;
    for (size_t i = 0; i < xv.size(); ++i) {
      const size_t c = last ? i % C : i / (H * W) % C;
      const double a = scale[c] / std::sqrt(static_cast<double>(var[c]) + 1e-5);
      const double want = xv[i] * a + (bias[c] - mean[c] * a);
      worst = std::max(worst, std::fabs(y[0][i] - want) / std::max(1.0, std::fabs(want)));
    }
    EXPECT_LT(worst, kTol) << (last ? "channels last" : "channels first");
  }
}

TEST(BatchNormalizationOp, Opset15AcceptsDoubleStatisticsWithFloatInput) {
  Attributes attrs;
  attrs.Set("epsilon", FloatAttr(1e-3f));
  std::vector<Tensor> y = RunOp("BatchNormalization", 15, attrs,
                                {BatchNormX(), Tensor::FromVector<float>({2}, {1.5f, -0.5f}),
                                 Tensor::FromVector<float>({2}, {0.25f, 1.0f}), Tensor::FromVector<double>({2}, {-1.0, 2.0}),
                                 Tensor::FromVector<double>({2}, {4.0, 0.25})});
  ExpectNear(ToVector<float>(y[0]), kBatchNormSpatial);
}

TEST(BatchNormalizationOp, Opset7SpatialMatchesOpset15) {
  Attributes attrs;
  attrs.Set("epsilon", FloatAttr(1e-3f));
  std::vector<Tensor> y = RunOp("BatchNormalization", 7, attrs,
                                {BatchNormX(), Tensor::FromVector<float>({2}, {1.5f, -0.5f}),
                                 Tensor::FromVector<float>({2}, {0.25f, 1.0f}), Tensor::FromVector<float>({2}, {-1.0f, 2.0f}),
                                 Tensor::FromVector<float>({2}, {4.0f, 0.25f})});
  ExpectNear(ToVector<float>(y[0]), kBatchNormSpatial);
}

// numpy: spatial = 0 gives each of the C*H*W = 8 positions its own parameters.
TEST(BatchNormalizationOp, Opset7NonSpatialUsesPerActivationStatistics) {
  Attributes attrs;
  attrs.Set("epsilon", FloatAttr(1e-3f));
  attrs.Set("spatial", IntAttr(0));
  auto linspace = [](float a, float b) {
    std::vector<float> v(8);
    for (int i = 0; i < 8; ++i) v[static_cast<size_t>(i)] = a + (b - a) * static_cast<float>(i) / 7.0f;
    return Tensor::FromVector<float>({2, 2, 2}, v);
  };
  std::vector<Tensor> y = RunOp("BatchNormalization", 7, attrs,
                                {BatchNormX(), linspace(0.5f, 2.0f), linspace(-1.0f, 1.0f), linspace(-2.0f, 2.0f),
                                 linspace(0.5f, 4.0f)});
  ExpectNear(ToVector<float>(y[0]), {-1.706401f, -1.479209f, -1.294769f, -1.123903f, -0.9604926f, -0.8025112f,
                                     -0.6490973f, -0.4998125f, 1.119202f, 1.376506f, 1.736922f, 2.107777f, 2.472151f,
                                     2.825943f, 3.168375f, 3.499688f});
}

TEST(BatchNormalizationOp, TrainingModeIsAnError) {
  Attributes attrs;
  attrs.Set("training_mode", IntAttr(1));
  const Tensor p = Tensor::FromVector<float>({2}, {1.0f, 1.0f});
  EXPECT_THROW(RunOp("BatchNormalization", 15, attrs, {BatchNormX(), p, p, p, p}), Error);
  // Before opset 14, training mode is a node with the statistics outputs.
  EXPECT_THROW(RunOp("BatchNormalization", 9, Attributes(), {BatchNormX(), p, p, p, p}, 5), Error);
}

// numpy: per (n, c) row [1, 2, 3, 4] and [-1, 0, 1, 6]: (x - m) / sqrt(v + 1e-5) * s + b.
TEST(InstanceNormalizationOp, NormalizesEachChannelOfEachItem) {
  Tensor x = Tensor::FromVector<float>({1, 2, 4}, {1, 2, 3, 4, -1, 0, 1, 6});
  std::vector<Tensor> y = RunOp("InstanceNormalization", 6, Attributes(),
                                {x, Tensor::FromVector<float>({2}, {2.0f, 1.0f}), Tensor::FromVector<float>({2}, {0.0f, 1.0f})});
  // row 0: mean 2.5, var 1.25; row 1: mean 1.5, var 7.25
  ExpectNear(ToVector<float>(y[0]), {-2.683271f, -0.8944236f, 0.8944236f, 2.683271f, 0.07152395f, 0.4429144f,
                                     0.8143048f, 2.671257f});
}

}  // namespace
}  // namespace ptq
