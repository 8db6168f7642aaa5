// GroupedConvPlanesF32 (groups of 16 input channels, channels last) gives the bits of Im2RowNhwc rows times each
// group's packed weights, over strides, dilations, pads, kernels, widths, batches, panels, epilogues and threads.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/conv/grouped_conv_planes.h"
#include "runtime/kernels/conv/im2row_nhwc.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

namespace ptq {
namespace {

using V = std::vector<int64_t>;

std::vector<float> Random(std::mt19937& rng, int64_t n) {
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = d(rng);
  return v;
}

struct Case {
  V kernel, strides, dilations, pads, input;
  int64_t group, mg, batch;
};

// The reference: each image's Im2RowNhwc rows of every group, each group's GEMM into its columns.
std::vector<float> Reference(const ConvGeometry& g, const std::vector<float>& x, const std::vector<PackedF32B>& packed,
                             const GemmEpilogue<float>& epi) {
  const SlidingWindow& w = g.window;
  const int64_t P = w.output[0] * w.output[1], M = g.out_channels, mg = g.out_channels_per_group();
  const int64_t K = g.in_channels_per_group() * w.kernel[0] * w.kernel[1], in = w.input[0] * w.input[1];
  std::vector<float> want(static_cast<size_t>(g.batch * P * M)), rows(static_cast<size_t>(P * g.group * K));
  for (int64_t n = 0; n < g.batch; ++n) {
    Im2RowNhwc(x.data() + n * in * g.in_channels, g.in_channels, g.group, w, 0, w.output[0], rows.data());
    for (int64_t grp = 0; grp < g.group; ++grp) {
      GemmEpilogue<float> e = epi;
      e.col_bias = epi.col_bias != nullptr ? epi.col_bias + grp * mg : nullptr;
      e.sum = epi.sum != nullptr ? epi.sum + n * P * M + grp * mg : nullptr;
      GemmF32Avx2Packed(P, 1.0f, rows.data() + grp * K, g.group * K, packed[static_cast<size_t>(grp)], 0.0f,
                        want.data() + n * P * M + grp * mg, M, BestF32Kernels(), e);
    }
  }
  return want;
}

// RegNet's shapes (3 x 3, stride 1 and 2, 4 to 49 groups, 7 to 112 wide) and random ones: kernels 1 x 1 to 4 x 4
// (16 taps, the most), 1 x 3 and 3 x 1; strides 1 to 3 on each axis; dilations 1 to 2; pads 0 to 2 on each side;
// widths of 1 to 40 output positions (rows of 1 to 3 tiles of 1 to 16 positions); 16 to 48 output channels a
// group (1 to 3 panels); batches 1 and 2; with or without bias, residual and clamp. An infinite weight makes the
// taps in the padding NaN, as the reference's zeros times it do (the planes' zeros are multiplied, not skipped).
// One and three threads (blocks of rows and parts of the groups between threads), and a finishing step.
TEST(GroupedConvPlanesTest, HasTheBitsOfIm2RowTimesPackedWeights) {
  if (!GetCpuFeatures().avx512f) GTEST_SKIP() << "the planes kernel needs AVX-512F";
  std::mt19937 rng(47);
  const auto pick = [&rng](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  std::vector<Case> cases = {
      {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {112, 112}, 4, 16, 1},  // RegNet-Y-800MF's first grouped 3 x 3
      {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {28, 28}, 9, 16, 2},
      {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {14, 14}, 20, 16, 1},
      {{3, 3}, {2, 2}, {1, 1}, {1, 1, 1, 1}, {14, 14}, 49, 16, 2},
      {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, {7, 7}, 49, 16, 1},
  };
  for (int trial = 0; trial < 40; ++trial) {
    Case c;
    const int shape = trial % 6;
    c.kernel = shape == 0 ? V{4, 4} : shape == 1 ? V{1, 3} : shape == 2 ? V{3, 1} : shape == 3 ? V{1, 1}
                                                                                                 : V{3, 3};
    c.strides = {pick(1, 3), pick(1, 3)};
    c.dilations = {pick(1, 2), pick(1, 2)};
    c.pads = {pick(0, 2), pick(0, 2), pick(0, 2), pick(0, 2)};
    c.input = {};
    for (size_t i = 0; i < 2; ++i) {
      const int64_t dk = (c.kernel[i] - 1) * c.dilations[i] + 1;
      c.input.push_back(std::max<int64_t>(1, dk - c.pads[i] - c.pads[2 + i]) + pick(0, i == 0 ? 9 : 40));
    }
    c.group = pick(2, 5);
    c.mg = 16 * pick(1, 3);
    c.batch = pick(1, 2);
    cases.push_back(c);
  }
  const int saved = omp_get_max_threads();
  for (size_t i = 0; i < cases.size(); ++i) {
    Case c = cases[i];
    // An infinite weight of the first tap, with padding above: the first output row's products with it are NaN.
    const bool infinite = i % 7 == 6;
    if (infinite) c.pads[0] = std::max<int64_t>(1, c.pads[0]);
    ConvAttributes attrs;
    attrs.kernel_shape = c.kernel;
    attrs.strides = c.strides;
    attrs.dilations = c.dilations;
    attrs.pads = c.pads;
    attrs.group = c.group;
    const int64_t C = 16 * c.group, M = c.mg * c.group, T = c.kernel[0] * c.kernel[1], K = 16 * T;
    const ConvGeometry g = ResolveConvGeometryChannelsLast(attrs, {c.batch, c.input[0], c.input[1], C},
                                                           {M, 16, c.kernel[0], c.kernel[1]});
    ASSERT_TRUE(GroupedConvPlanesApplies(g)) << "case " << i;
    const int64_t P = g.window.output[0] * g.window.output[1];
    const std::vector<float> x = Random(rng, c.batch * c.input[0] * c.input[1] * C);
    std::vector<float> w = Random(rng, M * K);
    if (infinite) {
      w[static_cast<size_t>((pick(0, M - 1) * 16 + pick(0, 15)) * T)] = std::numeric_limits<float>::infinity();
    }
    const std::vector<float> bias = Random(rng, M), z = Random(rng, c.batch * P * M);
    std::vector<float> wt(w.size());
    PackConvWeightsNhwc(w.data(), M, int64_t{16}, T, c.group, wt.data());
    std::vector<PackedF32B> packed;
    for (int64_t grp = 0; grp < c.group; ++grp) {
      packed.push_back(PackF32B(false, K, c.mg, wt.data() + grp * K * c.mg, c.mg));
    }
    GemmEpilogue<float> epi;
    epi.col_bias = i % 4 == 3 ? nullptr : bias.data();
    epi.sum = i % 2 == 0 ? z.data() : nullptr;
    epi.ld_sum = M;
    epi.clamp = i % 3 != 2;
    epi.lo = -0.5f;
    epi.hi = 1.0f;
    std::vector<float> want = Reference(g, x, packed, epi);
    if (infinite) {
      ASSERT_TRUE(std::any_of(want.begin(), want.end(), [](float v) { return std::isnan(v); })) << "case " << i;
    }
    for (int threads : {1, 3}) {
      omp_set_num_threads(threads);
      std::vector<float> got(want.size());
      GroupedConvPlanesF32(x.data(), packed, g, epi, got.data());
      EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float)))
          << "case " << i << ", " << threads << " threads";
    }
    // A finishing step runs once on every output, after it is stored.
    const FloatRowFinish twice = [](float* row, int64_t n) {
      for (int64_t k = 0; k < n; ++k) row[k] *= 2.0f;
    };
    std::vector<float> got(want.size());
    GroupedConvPlanesF32(x.data(), packed, g, epi, got.data(), &twice);
    for (float& v : want) v *= 2.0f;
    EXPECT_EQ(0, std::memcmp(got.data(), want.data(), want.size() * sizeof(float))) << "case " << i << ", finish";
  }
  omp_set_num_threads(saved);
}

}  // namespace
}  // namespace ptq
