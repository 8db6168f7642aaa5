// Tests that Histogram::Add's one-pass path (values inside the current range), its fallback and the
// two-pass path give the same exact bins, and that the fused index kernels agree with FloatBinIndices.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "calibrate/bin_index.h"
#include "calibrate/histogram.h"

namespace ptq {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// The bins every finite value of `all` must be in at h's final grid, computed in double.
void ExpectExactBins(const Histogram& h, const std::vector<float>& all) {
  std::vector<uint64_t> want(h.bins().size(), 0);
  uint64_t count = 0, zeros = 0;
  float mn = kInf, mx = -kInf;
  for (float x : all) {
    if (!std::isfinite(x)) continue;
    ++count;
    zeros += x == 0.0f;
    mn = std::min(mn, x + 0.0f);
    mx = std::max(mx, x + 0.0f);
    const int64_t j = static_cast<int64_t>(std::floor(std::ldexp(static_cast<double>(x), -h.exponent()))) - h.first_bin();
    ASSERT_GE(j, 0) << x;
    ASSERT_LT(j, static_cast<int64_t>(want.size())) << x;
    ++want[static_cast<size_t>(j)];
  }
  EXPECT_EQ(h.bins(), want);
  EXPECT_EQ(h.count(), count);
  EXPECT_EQ(h.zero_count(), zeros);
  EXPECT_EQ(h.min(), mn);
  EXPECT_EQ(h.max(), mx);
}

// Calls like a calibration run's: a first wide call, then many calls mostly inside its range (the
// one-pass path), some reaching past it at their start or end (the fallback, also after more than
// one block of 1024 values was counted), with zeros, -0, tiny negatives, bin edges, NaN and Inf.
TEST(HistogramAddPaths, ManyCallsInsideAndOutsideTheRangeGiveTheExactBins) {
  for (const auto& [offset, scale] : std::vector<std::pair<float, float>>{{0.0f, 1.0f}, {0.0f, 1e-3f}, {5e6f, 3.0f}}) {
    std::mt19937 rng(11);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::uniform_int_distribution<int> kind(0, 199);
    Histogram h;
    std::vector<float> all;
    for (int call = 0; call < 300; ++call) {
      const size_t n = std::uniform_int_distribution<size_t>(0, 5000)(rng);
      std::vector<float> v(n);
      const float spread = call == 0 ? 4.0f : 1.0f;
      for (size_t i = 0; i < n; ++i) {
        const int k = kind(rng);
        if (k == 0) v[i] = 0.0f;
        else if (k == 1) v[i] = -0.0f;
        else if (k == 2 && offset == 0.0f) v[i] = -1e-45f;  // underflows to -0 when scaled
        else if (k == 3) v[i] = offset + std::ldexp(1.0f, -3) * scale;
        else v[i] = offset + normal(rng) * scale * spread;
      }
      if (n > 0 && call % 17 == 5) v[n - 1] = offset + 7.0f * scale * (1 + call / 17);  // a new max, late
      if (n > 0 && call % 23 == 7) v[0] = offset - 6.0f * scale * (1 + call / 23);      // a new min, early
      if (n > 2 && call % 31 == 3) v[n / 2] = call % 2 ? kNaN : -kInf;
      h.Add(v);
      all.insert(all.end(), v.begin(), v.end());
    }
    ExpectExactBins(h, all);
    Histogram once;
    once.Add(all);
    EXPECT_TRUE(h == once) << "offset " << offset << " scale " << scale;
    EXPECT_EQ(h.ToJson().dump(), once.ToJson().dump());
  }
}

// The counters a failed one-pass call took back leave nothing behind for the next histogram.
TEST(HistogramAddPaths, AFallbackAfterSeveralBlocksLeavesNoStrayCounts) {
  Histogram a;
  std::vector<float> first = {-1.0f, 1.0f};
  a.Add(first);
  std::vector<float> v(5000, 0.5f);
  v.back() = 100.0f;  // outside: detected in the last block, after four were counted
  a.Add(v);
  Histogram b;  // same thread, same counters
  b.Add(first);
  b.Add(first);
  ExpectExactBins(b, {-1.0f, 1.0f, -1.0f, 1.0f});
  std::vector<float> all = first;
  all.insert(all.end(), v.begin(), v.end());
  ExpectExactBins(a, all);
}

// Histograms of different bin counts on one thread share the block counters: the spare counters of
// one layout (zeros, NaN, Inf went there) are bins of the next.
TEST(HistogramAddPaths, BinCountsTakenInTurnOnOneThreadStayExact) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int nb : {16, 2048, 20, 8192, 16388, 2048, 16, 4096}) {
    std::vector<float> v(20000);
    for (size_t i = 0; i < v.size(); ++i) v[i] = i % 3 == 0 ? 0.0f : i % 101 == 0 ? kNaN : normal(rng);
    Histogram h(nb);
    std::vector<float> all;
    for (size_t start = 0; start < v.size(); start += 2500) {  // the first call sets the grid, the rest mostly fit
      std::vector<float> piece(v.begin() + static_cast<std::ptrdiff_t>(start), v.begin() + static_cast<std::ptrdiff_t>(start + 2500));
      h.Add(piece);
      all.insert(all.end(), piece.begin(), piece.end());
    }
    ExpectExactBins(h, all);
  }
}

TEST(HistogramAddPaths, FusedIndicesAgreeWithFloatBinIndicesOnEveryPath) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  for (int e : {-20, -8, 0, 3}) {
    const float scale = std::ldexp(1.0f, -e);
    std::vector<float> v(1000 + static_cast<size_t>(e + 20));  // odd tails too
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = i % 13 == 0 ? 0.0f : i % 17 == 0 ? -1e-45f : normal(rng) * std::ldexp(200.0f, e);
    }
    float mn = kInf, mx = -kInf;
    uint32_t zeros = 0;
    for (float x : v) {
      mn = std::min(mn, x);
      mx = std::max(mx, x);
      zeros += x == 0.0f;
    }
    const int32_t first = static_cast<int32_t>(std::floor(std::ldexp(static_cast<double>(mn), -e)));
    std::vector<int32_t> want(v.size()), avx(v.size()), sse(v.size());
    FloatBinIndices(v.data(), v.size(), scale, first, 2048, true, want.data());
    for (bool allow_avx2 : {true, false}) {
      std::vector<int32_t>& got = allow_avx2 ? avx : sse;
      const IndexedRange r = FloatBinIndicesAndRange(v.data(), v.size(), scale, first, 2048, got.data(), allow_avx2);
      EXPECT_EQ(got, want) << "e " << e << " avx2 " << allow_avx2;
      EXPECT_EQ(r.min, mn);
      EXPECT_EQ(r.max, mx);
      EXPECT_EQ(r.zeros, zeros);
      EXPECT_FALSE(r.has_nan);
    }
    v[v.size() / 3] = kNaN;
    v[v.size() - 1] = kInf;
    for (bool allow_avx2 : {true, false}) {
      const IndexedRange r = FloatBinIndicesAndRange(v.data(), v.size(), scale, first, 2048, avx.data(), allow_avx2);
      EXPECT_TRUE(r.has_nan);
      EXPECT_EQ(r.max, kInf);
    }
  }
}

}  // namespace
}  // namespace ptq
