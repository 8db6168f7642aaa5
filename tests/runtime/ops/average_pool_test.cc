// Tests of AveragePool (count_include_pad both ways, with and without ceil_mode, 1-D, float16) and
// of GlobalAveragePool / GlobalMaxPool. Expected values: an independent numpy loop over each window's
// taps (divisor: taps inside the input, or inside the padded extent with count_include_pad).
#include "runtime/ops/nn/average_pool.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "tests/runtime/ops/nn_test_util.h"

namespace ptq {
namespace {

using testing::ExpectValues;
using testing::IntAttr;
using testing::IntsAttr;
using testing::PatternTensor;

Attributes AvgAttrs(std::vector<int64_t> kernel, std::vector<int64_t> strides, std::vector<int64_t> pads,
                    bool count_include_pad, bool ceil_mode = false) {
  Attributes a;
  a.Set("kernel_shape", IntsAttr(kernel));
  a.Set("strides", IntsAttr(strides));
  a.Set("pads", IntsAttr(pads));
  a.Set("count_include_pad", IntAttr(count_include_pad ? 1 : 0));
  a.Set("ceil_mode", IntAttr(ceil_mode ? 1 : 0));
  return a;
}

TEST(AveragePoolTest, PaddingIsExcludedFromTheDivisorByDefault) {
  const Tensor x = PatternTensor({1, 2, 5, 6}, 0);
  ExpectValues(testing::RunOp("AveragePool", 11, AvgAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, false), {x})[0], {1, 2, 3, 3},
               {-0.25f, 0.2083333283662796f, 0.4583333432674408f, -0.2083333283662796f, -0.1111111119389534f,
                0.1388888955116272f, 0.375f, -0.25f, 0.0f, 0.25f, 0.1666666716337204f, -0.125f, 0.2916666567325592f,
                0.02777777798473835f, -0.4444444477558136f, 0.0625f, 0.25f, -0.0416666679084301f});
}

TEST(AveragePoolTest, CountIncludePadDividesByTheWholeWindow) {
  const Tensor x = PatternTensor({1, 2, 5, 6}, 0);
  ExpectValues(
      testing::RunOp("AveragePool", 11, AvgAttrs({3, 3}, {2, 2}, {1, 1, 1, 1}, true), {x})[0], {1, 2, 3, 3},
      {-0.1111111119389534f, 0.1388888955116272f, 0.3055555522441864f, -0.1388888955116272f, -0.1111111119389534f,
       0.1388888955116272f, 0.1666666716337204f, -0.1666666716337204f, 0.0f, 0.1111111119389534f, 0.1111111119389534f,
       -0.0833333358168602f, 0.1944444477558136f, 0.02777777798473835f, -0.4444444477558136f, 0.02777777798473835f,
       0.1666666716337204f, -0.02777777798473835f});
}

TEST(AveragePoolTest, CeilModeWindowsPastThePaddingCountOnlyPaddedTaps) {
  // 7 + 1 (begin) + 0 (end): windows start at -1, 1, 3, 5; the last reaches 7, outside the padding.
  const Tensor x = PatternTensor({1, 1, 7, 7}, 0);
  ExpectValues(
      testing::RunOp("AveragePool", 11, AvgAttrs({3, 3}, {2, 2}, {1, 1, 0, 0}, true, true), {x})[0], {1, 1, 4, 4},
      {-0.0833333358168602f, 0.0f, 0.1666666716337204f, -0.25f, 0.02777777798473835f, 0.1388888955116272f,
       0.02777777798473835f, -0.4166666567325592f, 0.1111111119389534f, 0.4444444477558136f, -0.02777777798473835f,
       -0.2916666567325592f, 0.0833333358168602f, 0.0416666679084301f, -0.25f, -0.0625f});
  ExpectValues(testing::RunOp("AveragePool", 11, AvgAttrs({3, 3}, {2, 2}, {1, 1, 0, 0}, false, true), {x})[0],
               {1, 1, 4, 4},
               {-0.1875f, 0.0f, 0.25f, -0.375f, 0.0416666679084301f, 0.1388888955116272f, 0.02777777798473835f,
                -0.4166666567325592f, 0.1666666716337204f, 0.4444444477558136f, -0.02777777798473835f,
                -0.2916666567325592f, 0.125f, 0.0416666679084301f, -0.25f, -0.0625f});
}

TEST(AveragePoolTest, OneDimensionalAndFloat16) {
  const Attributes a = AvgAttrs({3}, {2}, {1, 1}, false);
  ExpectValues(
      testing::RunOp("AveragePool", 19, a, {PatternTensor({2, 2, 7}, 0)})[0], {2, 2, 4},
      {-0.625f, -0.1666666716337204f, 0.0833333358168602f, 0.0f, 0.25f, 0.1666666716337204f, 0.4166666567325592f,
       -0.75f, -0.5f, -0.5833333134651184f, -0.3333333432674408f, 0.125f, 0.375f, 0.8333333134651184f, 0.0f, -0.625f});
  ExpectValues(
      testing::RunOp("AveragePool", 19, a, {testing::ToHalf(PatternTensor({2, 2, 7}, 0))})[0], {2, 2, 4},
      {-0.625f, -0.1666666716337204f, 0.0833333358168602f, 0.0f, 0.25f, 0.1666666716337204f, 0.4166666567325592f,
       -0.75f, -0.5f, -0.5833333134651184f, -0.3333333432674408f, 0.125f, 0.375f, 0.8333333134651184f, 0.0f, -0.625f},
      testing::kHalfTolerance, true);
}

TEST(GlobalPoolTest, AverageAndMaxKeepTheRank) {
  ExpectValues(
      testing::RunOp("GlobalAveragePool", 1, Attributes(), {PatternTensor({2, 3, 4, 5}, 0)})[0], {2, 3, 1, 1},
      {-0.15000000596046448f, 0.07500000298023224f, -0.02500000037252903f, 0.03750000149011612f, -0.0625f, 0.0f});
  std::vector<float> distinct(120);
  for (size_t i = 0; i < distinct.size(); ++i)
    distinct[i] = static_cast<float>(static_cast<int64_t>(i * 37 + 3) % 101 - 50) / 8.0f;
  const Tensor x = Tensor::FromVector<float>({2, 3, 4, 5}, distinct);
  ExpectValues(testing::RunOp("GlobalMaxPool", 1, Attributes(), {x})[0], {2, 3, 1, 1},
               {6.25f, 5.75f, 6.125f, 6.0f, 5.5f, 5.875f});
  const Tensor y8 = testing::RunOp("GlobalMaxPool", 1, Attributes(),
                                   {Tensor::FromVector<uint8_t>({1, 2, 3}, {1, 9, 4, 200, 0, 7})})[0];
  EXPECT_EQ(y8.shape(), (Shape{1, 2, 1}));
  EXPECT_EQ(testing::ToVector<uint8_t>(y8), (std::vector<uint8_t>{9, 200}));
}

// GlobalPoolTest.AverageSharedBetweenThreadsSumsEachChannelInOrder for C channels.
void ExpectChannelSumsInOrder(int64_t C) {
  const int64_t N = 3, S = 40 * 40;
  std::vector<float> last(static_cast<size_t>(N * S * C)), first(last.size()), want(static_cast<size_t>(N * C));
  for (int64_t n = 0; n < N; ++n) {
    for (int64_t s = 0; s < S; ++s) {
      for (int64_t c = 0; c < C; ++c) {
        const float v = static_cast<float>((n * 7919 + s * 104729 + c * 1299709) % 2001 - 1000) / 64.0f;
        last[static_cast<size_t>((n * S + s) * C + c)] = v;
        first[static_cast<size_t>((n * C + c) * S + s)] = v;
      }
    }
    for (int64_t c = 0; c < C; ++c) {
      float sum = 0.0f;
      for (int64_t s = 0; s < S; ++s) sum += last[static_cast<size_t>((n * S + s) * C + c)];
      want[static_cast<size_t>(n * C + c)] = sum / static_cast<float>(S);
    }
  }
  Attributes channels_last;
  channels_last.Set("channels_last", IntAttr(1));
  const int saved = omp_get_max_threads();
  std::vector<float> first_on_one;  // channels first on one thread: the bits the planes shared by threads give
  for (int threads : {1, 3}) {
    omp_set_num_threads(threads);
    const Tensor y_last = testing::RunOp("GlobalAveragePool", 1, channels_last,
                                         {Tensor::FromVector<float>({N, 40, 40, C}, last)}, 1, false, "ptq.fused")[0];
    EXPECT_EQ(y_last.shape(), (Shape{N, 1, 1, C}));
    EXPECT_EQ(testing::ToVector<float>(y_last), want) << threads << " threads, channels last";
    const Tensor y_first =
        testing::RunOp("GlobalAveragePool", 1, Attributes(), {Tensor::FromVector<float>({N, C, 40, 40}, first)})[0];
    const std::vector<float> got = testing::ToVector<float>(y_first);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {  // RowSum's partial sums: another order, so a named tolerance
      EXPECT_NEAR(got[i], want[i], 1e-5f * std::max(1.0f, std::fabs(want[i]))) << threads << " threads, plane " << i;
    }
    if (threads == 1) first_on_one = got;
    EXPECT_EQ(got, first_on_one) << threads << " threads, channels first";
  }
  omp_set_num_threads(saved);
}

// Inputs large enough to share between threads (3 images, 40 x 40 positions, 56 channels: blocks of 16 channels, the
// last one short; 32 channels, summed in registers; and the same values channels first, by planes) give, on 1 and 3
// threads, each channel's sum of its positions in order divided by their count, bit for bit.
TEST(GlobalPoolTest, AverageSharedBetweenThreadsSumsEachChannelInOrder) {
  for (const int64_t C : {56, 32}) {
    SCOPED_TRACE(std::to_string(C) + " channels");
    ExpectChannelSumsInOrder(C);
  }
}

}  // namespace
}  // namespace ptq
