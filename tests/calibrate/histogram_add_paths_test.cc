// Tests that Histogram::Add's one-pass path (values inside the current range), its fallback and the
// two-pass path give the same exact bins, and that CountBins agrees with the exact formula on every path.
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

// CountBins on every instruction set against the exact double formula: bin edges (ties), -0, tiny
// negatives that underflow, NaN, +-Inf, values outside the grid on both sides and far away, lengths
// that leave every tail, one and two counter copies. Bins must match exactly; the rest goes to spares.
TEST(HistogramAddPaths, CountBinsMatchesTheExactFormulaOnEveryInstructionSet) {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const int32_t nb = 2048;
  for (int e : {-20, -8, 0, 3}) {
    const float scale = std::ldexp(1.0f, -e);
    const float width = std::ldexp(1.0f, e);
    const int32_t first = -1000;  // the grid covers [-1000 w, 1048 w)
    std::vector<float> v(1000 + static_cast<size_t>(e + 20) * 3);  // odd tails too
    for (size_t i = 0; i < v.size(); ++i) {
      const int k = static_cast<int>(i % 29);
      v[i] = k == 0 ? 0.0f : k == 1 ? -0.0f : k == 2 ? -1e-45f : k == 3 ? 1e-45f
           : k == 4 ? width * static_cast<float>(static_cast<int>(i % 2000) - 1000)  // exactly on a bin edge
           : k == 5 ? kNaN : k == 6 ? (i % 2 ? kInf : -kInf)
           : k == 7 ? width * (1048.0f + static_cast<float>(i % 5))                 // just past the top
           : k == 8 ? -width * (1001.0f + static_cast<float>(i % 5))                // just below the bottom
           : k == 9 ? (i % 2 ? 3e38f : -3e38f)                                     // far outside
           : normal(rng) * 300.0f * width;
    }
    std::vector<uint32_t> want(nb, 0);
    float mn = kInf, mx = -kInf;
    uint32_t zeros = 0;
    for (float x : v) {
      if (x == x) {
        mn = std::min(mn, x);
        mx = std::max(mx, x);
      }
      zeros += x == 0.0f;
      if (!std::isfinite(x) || x == 0.0f) continue;
      const int64_t j = static_cast<int64_t>(std::floor(std::ldexp(static_cast<double>(x), -e))) - first;
      if (j >= 0 && j < nb) ++want[static_cast<size_t>(j)];
    }
    for (BinIsa isa : {BinIsa::kBest, BinIsa::kAvx512, BinIsa::kAvx2, BinIsa::kSse2, BinIsa::kScalar}) {
      for (size_t copies : {1, 2}) {
        const size_t stride = nb + 4 + 3;
        std::vector<uint32_t> c(stride * copies, 0);
        const IndexedRange r = CountBins(v.data(), v.size(), scale, first, nb, c.data(), stride, copies, isa);
        std::vector<uint32_t> got(nb, 0);
        uint64_t total = 0;
        for (size_t k = 0; k < copies; ++k) {
          for (size_t j = 0; j < stride; ++j) {
            if (j < static_cast<size_t>(nb)) got[j] += c[k * stride + j];
            EXPECT_TRUE(j < static_cast<size_t>(nb) + 4 || c[k * stride + j] == 0) << "wrote past the spares";
            total += c[k * stride + j];
          }
        }
        const std::string where = "e " + std::to_string(e) + " isa " + std::to_string(static_cast<int>(isa)) +
                                  " copies " + std::to_string(copies);
        EXPECT_EQ(got, want) << where;
        EXPECT_EQ(total, v.size()) << where;
        EXPECT_EQ(r.min, mn) << where;
        EXPECT_EQ(r.max, mx) << where;
        EXPECT_EQ(r.zeros, zeros) << where;
        EXPECT_TRUE(r.has_nan) << where;
      }
    }
    // Without NaN, has_nan stays false on every path.
    for (float& x : v) x = x == x ? x : 1.0f;
    for (BinIsa isa : {BinIsa::kAvx512, BinIsa::kAvx2, BinIsa::kSse2, BinIsa::kScalar}) {
      std::vector<uint32_t> c(2 * (nb + 4), 0);
      EXPECT_FALSE(CountBins(v.data(), v.size(), scale, first, nb, c.data(), nb + 4, 2, isa).has_nan);
    }
  }
}

// A value outside the range seen so far in a late block of a one-pass call, on a histogram whose values
// pile up on bin edges: the take-back leaves the same bins as adding the values in one call.
TEST(HistogramAddPaths, RangeGrowthMidCallOnBinEdgesStaysExact) {
  Histogram h;
  std::vector<float> all;
  std::vector<float> first = {-2.0f, 2.0f};
  h.Add(first);
  all = first;
  for (int call = 0; call < 40; ++call) {
    std::vector<float> v(3000 + static_cast<size_t>(call) * 37);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::ldexp(static_cast<float>(static_cast<int>(i % 2001) - 1000), -9);
    if (call % 5 == 2) v[v.size() - 1 - static_cast<size_t>(call)] = 2.5f + static_cast<float>(call);  // past max
    if (call % 7 == 3) v[2500] = -3.0f - static_cast<float>(call);                                    // past min
    if (call % 11 == 4) v[1500] = kNaN;
    h.Add(v);
    all.insert(all.end(), v.begin(), v.end());
  }
  ExpectExactBins(h, all);
  Histogram once;
  once.Add(all);
  EXPECT_TRUE(h == once);
}

}  // namespace
}  // namespace ptq
