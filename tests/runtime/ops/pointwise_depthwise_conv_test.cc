// PointwiseDepthwiseConv gives the bits of its two FusedConvs run one after the other, for strides, dilations,
// kernels, activations and batches, on 1, 2 and 3 threads (blocks of output rows meeting between threads, or
// blocks of channels).
#include <gtest/gtest.h>
#include <omp.h>

#include <cstring>
#include <random>
#include <string>

#include "runtime/cpu_features.h"
#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::FloatAttr;
using testing::IntAttr;
using testing::IntsAttr;
using testing::RunOp;

Tensor Random(std::mt19937& rng, Shape shape, float lo = -1.0f, float hi = 1.0f) {
  Tensor t(DataType::kFloat, std::move(shape));
  std::uniform_real_distribution<float> d(lo, hi);
  for (int64_t i = 0; i < t.size(); ++i) t.data<float>()[i] = d(rng);
  return t;
}

// `activation`: "" (none), "relu6" (the clamp [0, 6]) or "silu", as FusedConv attributes with `prefix`.
void SetActivation(Attributes* a, const std::string& activation, const std::string& prefix) {
  if (activation == "relu6") {
    a->Set(prefix + "activation_min", FloatAttr(0.0f));
    a->Set(prefix + "activation_max", FloatAttr(6.0f));
  } else if (activation == "silu") {
    a->Set(prefix + "activation_silu", IntAttr(1));
  }
}

struct Case {
  const char* name;
  Shape x;  // [N, H, W, C]
  int64_t E, kernel, stride, dilation, pad;
  const char* pw_activation;
  const char* dw_activation;
  bool biases;
};

TEST(ChannelsLastPointwiseDepthwise, GivesTheBitsOfBothConvolutionsOnAnyThreadCount) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the fused kernel needs AVX2 and FMA";
  const Case cases[] = {
      {"3x3 stride 1, relu6 both", {1, 9, 11, 5}, 20, 3, 1, 1, 1, "relu6", "relu6", true},
      {"3x3 stride 2, odd rows", {1, 13, 7, 8}, 24, 3, 2, 1, 1, "relu6", "", true},
      {"5x5 stride 2, silu both, no biases", {2, 12, 12, 6}, 36, 5, 2, 1, 2, "silu", "silu", false},
      {"3x3 dilation 2, no padding", {1, 10, 9, 4}, 12, 3, 1, 2, 0, "", "relu6", true},
      {"large: rows shared between threads", {1, 40, 36, 16}, 96, 3, 1, 1, 1, "relu6", "relu6", true},
      {"large, stride 2, three images", {3, 30, 30, 24}, 72, 3, 2, 1, 1, "silu", "", true},
      // Short images with fewer images than threads: blocks of channels (the last one narrower).
      {"short: channels shared between threads", {1, 14, 14, 40}, 200, 3, 1, 1, 1, "relu6", "relu6", true},
      {"short, stride 2, channels not a multiple of 8", {1, 14, 13, 24}, 172, 3, 2, 1, 1, "silu", "silu", false},
      {"short, 5x5, two images", {2, 7, 7, 160}, 960, 5, 1, 1, 2, "silu", "", true},
  };
  std::mt19937 rng(23);
  const int saved = omp_get_max_threads();
  for (const Case& c : cases) {
    const int64_t C = c.x[3];
    const Tensor x = Random(rng, c.x), w1 = Random(rng, {c.E, C, 1, 1}), w2 = Random(rng, {c.E, 1, c.kernel, c.kernel});
    const Tensor b1 = c.biases ? Random(rng, {c.E}) : Tensor(), b2 = c.biases ? Random(rng, {c.E}) : Tensor();
    Attributes pw, dw;
    pw.Set("channels_last", IntAttr(1));
    SetActivation(&pw, c.pw_activation, "");
    dw.Set("channels_last", IntAttr(1));
    dw.Set("group", IntAttr(c.E));
    dw.Set("kernel_shape", IntsAttr({c.kernel, c.kernel}));
    dw.Set("strides", IntsAttr({c.stride, c.stride}));
    dw.Set("dilations", IntsAttr({c.dilation, c.dilation}));
    dw.Set("pads", IntsAttr({c.pad, c.pad, c.pad, c.pad}));
    SetActivation(&dw, c.dw_activation, "");
    Attributes fused = dw;
    SetActivation(&fused, c.pw_activation, "pointwise_");
    omp_set_num_threads(1);
    const Tensor expanded = RunOp("FusedConv", 1, pw, {x, w1, b1}, 1, true, "ptq.fused")[0];
    const Tensor want = RunOp("FusedConv", 1, dw, {expanded, w2, b2}, 1, true, "ptq.fused")[0];
    for (int threads : {1, 2, 3}) {
      omp_set_num_threads(threads);
      const Tensor got = RunOp("PointwiseDepthwiseConv", 1, fused, {x, w1, b1, w2, b2}, 1, true, "ptq.fused")[0];
      ASSERT_EQ(got.shape(), want.shape()) << c.name;
      EXPECT_EQ(0, std::memcmp(got.raw(), want.raw(), want.nbytes())) << c.name << ", " << threads << " threads";
    }
  }
  omp_set_num_threads(saved);
}

TEST(ChannelsLastPointwiseDepthwise, WrongShapesAreInputErrors) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the fused kernel needs AVX2 and FMA";
  std::mt19937 rng(29);
  Attributes a;
  a.Set("group", IntAttr(8));
  const Tensor w1 = Random(rng, {8, 4, 1, 1}), w2 = Random(rng, {8, 1, 3, 3});
  // X with 5 channels where W1 takes 4.
  EXPECT_THROW(RunOp("PointwiseDepthwiseConv", 1, a, {Random(rng, {1, 6, 6, 5}), w1, Tensor(), w2, Tensor()}, 1,
                     true, "ptq.fused"),
               Error);
  // W2 with 6 channels where W1 makes 8.
  EXPECT_THROW(RunOp("PointwiseDepthwiseConv", 1, a,
                     {Random(rng, {1, 6, 6, 4}), w1, Tensor(), Random(rng, {6, 1, 3, 3}), Tensor()}, 1, true,
                     "ptq.fused"),
               Error);
  // A bias of 7 values.
  EXPECT_THROW(RunOp("PointwiseDepthwiseConv", 1, a, {Random(rng, {1, 6, 6, 4}), w1, Random(rng, {7}), w2, Tensor()},
                     1, true, "ptq.fused"),
               Error);
}

}  // namespace
}  // namespace ptq
