// A channels-last float convolution with fewer output lines than threads (PP-OCR rec's 1 x 3 windows over one row
// of 40 positions) shares its positions between the threads: every thread count gives the bits of one thread, and
// the values of the convolution's definition.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstring>
#include <random>

#include "tests/runtime/ops/op_test_util.h"

namespace ptq {
namespace {

using testing::IntAttr;
using testing::IntsAttr;

Tensor Random(std::mt19937& rng, const Shape& shape) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(ShapeSize(shape)));
  for (float& x : v) x = dist(rng);
  return Tensor::FromVector<float>(shape, v);
}

TEST(ConvFewLines, OneOutputLineIsSharedByPositionsWithTheBitsOfOneThread) {
  // x [N, 1, 40, C] (channels last), w [M, C, 1, 3], padding 1 left and right: N x 1 x 40 x M.
  for (int64_t batch : {1, 2}) {
    std::mt19937 rng(static_cast<unsigned>(7 + batch));
    const int64_t W = 40, C = 96, M = 60;
    const Tensor x = Random(rng, {batch, 1, W, C}), w = Random(rng, {M, C, 1, 3}), b = Random(rng, {M});
    Attributes a;
    a.Set("kernel_shape", IntsAttr({1, 3}));
    a.Set("pads", IntsAttr({0, 1, 0, 1}));
    a.Set("channels_last", IntAttr(1));
    const int saved = omp_get_max_threads();
    omp_set_num_threads(1);
    const Tensor one = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
    ASSERT_EQ(one.shape(), (Shape{batch, 1, W, M}));
    for (int threads : {2, 3}) {
      omp_set_num_threads(threads);
      const Tensor more = testing::RunOp("FusedConv", 1, a, {x, w, b}, 1, true, "ptq.fused")[0];
      EXPECT_EQ(0, std::memcmp(one.raw(), more.raw(), one.nbytes())) << "batch " << batch << ", " << threads
                                                                       << " threads";
    }
    omp_set_num_threads(saved);
    // y[n, 0, p, m] = b[m] + sum over c and the 3 taps of x[n, 0, p - 1 + t, c] * w[m, c, 0, t], in double; float
    // sums of 288 terms of magnitude below 1 agree to kTolerance.
    constexpr double kTolerance = 1e-4;
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t p = 0; p < W; ++p) {
        for (int64_t m = 0; m < M; ++m) {
          double want = b.data<float>()[m];
          for (int64_t t = 0; t < 3; ++t) {
            const int64_t q = p - 1 + t;
            if (q < 0 || q >= W) continue;
            for (int64_t c = 0; c < C; ++c) {
              want += static_cast<double>(x.data<float>()[(n * W + q) * C + c]) * w.data<float>()[(m * C + c) * 3 + t];
            }
          }
          ASSERT_NEAR(one.data<float>()[(n * W + p) * M + m], want, kTolerance) << n << " " << p << " " << m;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ptq
