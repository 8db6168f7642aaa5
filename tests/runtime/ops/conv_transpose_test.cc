// Tests of ConvTranspose: output_padding, groups with dilations, output_shape, 1-D, float16, the kernel equal to its
// stride. Expected values: an independent numpy scatter (y_full[i * s + k * d] += x[i] * w[k], then cropped by
// the pads) on Pattern() inputs (X salt 0, W salt 1, B salt 2); for the kernel equal to its stride, the GEMM and
// scatter of every other window, and a sum in double.
#include "runtime/ops/nn/conv_transpose.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/conv/im2col.h"
#include "runtime/kernels/gemm_f32/row_major_gemm.h"

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

// A 2-D kernel equal to its stride (the upsampling of PP-OCR's detector and FCN-style heads) is stored as its row
// blocks are computed: the bits of the GEMM over the whole image then the col2im scatter onto the bias, as every
// other window runs, and within float rounding of a double scatter. Several row blocks, a partial last one, two
// groups, three images, no bias, on one and two threads.
TEST(ConvTransposeTest, KernelEqualToStrideHasTheBitsOfTheWholeImageGemmAndScatter) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the tiling path needs AVX2";
  std::mt19937 rng(21);
  std::normal_distribution<float> d(0.0f, 1.0f);
  auto random = [&](Shape shape) {
    Tensor t(DataType::kFloat, std::move(shape));
    for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
    return t;
  };
  struct Case {
    int64_t batch, group, cg, mg, h, w, s0, s1;
    bool bias;
  };
  const int saved = omp_get_max_threads();
  for (const Case& c : {Case{1, 1, 24, 16, 70, 40, 2, 2, true}, Case{3, 2, 5, 7, 33, 19, 3, 2, false},
                       Case{2, 1, 96, 24, 9, 300, 2, 2, true}, Case{1, 1, 3, 2, 4, 5, 1, 3, true}}) {
    const Tensor x = random({c.batch, c.group * c.cg, c.h, c.w}), wt = random({c.group * c.cg, c.mg, c.s0, c.s1});
    const Tensor bias = random({c.group * c.mg});
    // The general path: per image and group, col = W_g^T * X_g over the whole image, then col2im onto the bias.
    const int64_t taps = c.s0 * c.s1, in_size = c.h * c.w, out_size = in_size * taps, m_all = c.group * c.mg;
    std::vector<float> want(static_cast<size_t>(c.batch * m_all * out_size));
    std::vector<float> col(static_cast<size_t>(c.mg * taps * in_size));
    SlidingWindow win;
    win.input = {c.h, c.w};
    win.kernel = win.strides = {c.s0, c.s1};
    win.dilations = {1, 1};
    win.pads_begin = win.pads_end = {0, 0};
    win.output = {c.h * c.s0, c.w * c.s1};
    for (int64_t i = 0; i < c.batch * m_all; ++i) {
      const float b = c.bias ? bias.data<float>()[i % m_all] : 0.0f;
      std::fill(want.begin() + i * out_size, want.begin() + (i + 1) * out_size, b);
    }
    for (int64_t n = 0; n < c.batch; ++n) {
      for (int64_t g = 0; g < c.group; ++g) {
        RowMajorGemm<float>(true, false, c.mg * taps, in_size, c.cg, 1.0f, wt.data<float>() + g * c.cg * c.mg * taps,
                            c.mg * taps, x.data<float>() + (n * c.group + g) * c.cg * in_size, in_size, 0.0f,
                            col.data(), in_size);
        Col2ImAdd(col.data(), c.mg, win, want.data() + (n * m_all + g * c.mg) * out_size);
      }
    }
    Attributes a;
    a.Set("kernel_shape", IntsAttr({c.s0, c.s1}));
    a.Set("strides", IntsAttr({c.s0, c.s1}));
    a.Set("group", IntAttr(c.group));
    std::vector<Tensor> in = {x, wt};
    if (c.bias) in.push_back(bias);
    for (int threads : {1, 2}) {
      omp_set_num_threads(threads);
      const Tensor y = testing::RunOp("ConvTranspose", 11, a, in)[0];
      ASSERT_EQ(y.shape(), (Shape{c.batch, m_all, c.h * c.s0, c.w * c.s1}));
      EXPECT_EQ(0, std::memcmp(y.raw(), want.data(), want.size() * sizeof(float)))
          << "x " << ShapeToString(x.shape()) << " w " << ShapeToString(wt.shape()) << ", " << threads << " threads";
      // And the sum itself, in double, at every 7th output.
      for (int64_t o = 0; o < y.size(); o += 7) {
        const int64_t j = o % (c.w * c.s1), i = (o / (c.w * c.s1)) % (c.h * c.s0), m = (o / out_size) % m_all,
                      n = o / (out_size * m_all), g = m / c.mg;
        double sum = c.bias ? bias.data<float>()[m] : 0.0;
        for (int64_t k = 0; k < c.cg; ++k) {
          const int64_t ch = g * c.cg + k;
          sum += static_cast<double>(x.data<float>()[((n * c.group * c.cg + ch) * c.h + i / c.s0) * c.w + j / c.s1]) *
                 wt.data<float>()[((ch * c.mg + m % c.mg) * c.s0 + i % c.s0) * c.s1 + j % c.s1];
        }
        ASSERT_NEAR(y.data<float>()[o], sum, 1e-5 * (1.0 + std::abs(sum)) * std::sqrt(static_cast<double>(c.cg)))
            << "output " << o;
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(ConvTransposeTest, ChannelMismatchIsAnInputError) {
  EXPECT_NE(testing::InputErrorOf([] {
              testing::RunOp("ConvTranspose", 11, Attributes(), Inputs({1, 2, 3, 3}, {3, 3, 3, 3}, 0));
            }),
            "");
}

}  // namespace
}  // namespace ptq
