// Tests of the streaming histogram: exact merging of shards, widening, NaN/Inf, mean and std, JSON.
#include "calibrate/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "runtime/error.h"

namespace ptq {
namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const float kInf = std::numeric_limits<float>::infinity();

// A stream whose range keeps growing: mixed scales, signs, subnormals, ties on bin edges, NaN/Inf.
std::vector<float> MixedStream(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> kind(0, 99);
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) {
    const int k = kind(rng);
    const float scale = std::ldexp(1.0f, static_cast<int>(i * 24 / n) - 8);  // grows along the stream
    if (k == 0) v[i] = kNaN;
    else if (k == 1) v[i] = (i % 2) ? kInf : -kInf;
    else if (k == 2) v[i] = 1e-41f;                    // subnormal
    else if (k == 3) v[i] = -0.0f;
    else if (k == 4) v[i] = std::ldexp(1.0f, k % 7);   // exactly on a bin edge
    else v[i] = normal(rng) * scale + (k < 20 ? 3.0f * scale : 0.0f);
  }
  return v;
}

// Adds v to h in pieces of random size.
void AddInPieces(Histogram* h, const float* v, size_t n, std::mt19937* rng) {
  size_t i = 0;
  while (i < n) {
    const size_t piece = std::min(n - i, std::uniform_int_distribution<size_t>(0, 5000)(*rng));
    h->Add(v + i, piece);
    i += piece;
  }
}

uint64_t Bits(double d) {
  uint64_t b;
  std::memcpy(&b, &d, sizeof b);
  return b;
}

void ExpectIdentical(const Histogram& a, const Histogram& b) {
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.bins(), b.bins());
  EXPECT_EQ(a.count(), b.count());
  EXPECT_EQ(a.min(), b.min());
  EXPECT_EQ(a.max(), b.max());
  EXPECT_EQ(a.exponent(), b.exponent());
  EXPECT_EQ(a.first_bin(), b.first_bin());
  EXPECT_EQ(Bits(a.mean()), Bits(b.mean()));
  EXPECT_EQ(Bits(a.stddev()), Bits(b.stddev()));
  EXPECT_EQ(a.ToJson().dump(), b.ToJson().dump());
}

TEST(Histogram, MergedShardsEqualOnePassBitForBit) {
  const std::vector<float> v = MixedStream(200000, 7);
  Histogram one_pass;
  one_pass.Add(v);
  for (uint32_t trial = 0; trial < 8; ++trial) {
    std::mt19937 rng(100 + trial);
    const int shards = 2 + static_cast<int>(trial);
    std::vector<size_t> cuts = {0, v.size()};
    for (int s = 1; s < shards; ++s) cuts.push_back(std::uniform_int_distribution<size_t>(0, v.size())(rng));
    std::sort(cuts.begin(), cuts.end());
    std::vector<Histogram> parts;
    for (size_t s = 0; s + 1 < cuts.size(); ++s) {
      parts.emplace_back();
      AddInPieces(&parts.back(), v.data() + cuts[s], cuts[s + 1] - cuts[s], &rng);
    }
    std::shuffle(parts.begin(), parts.end(), rng);  // merge order does not matter either
    Histogram merged;
    for (const auto& p : parts) merged.Merge(p);
    ExpectIdentical(merged, one_pass);
  }
}

TEST(Histogram, OrderOfValuesDoesNotMatter) {
  std::vector<float> v = MixedStream(50000, 3);
  Histogram forward;
  forward.Add(v);
  std::reverse(v.begin(), v.end());
  Histogram backward;
  std::mt19937 rng(1);
  AddInPieces(&backward, v.data(), v.size(), &rng);
  ExpectIdentical(forward, backward);
}

TEST(Histogram, WideningKeepsCountsAndBinsStillContainTheirValues) {
  Histogram h(64);
  std::vector<float> small;
  for (int i = 0; i < 1000; ++i) small.push_back(static_cast<float>(i) / 1000.0f);  // [0, 1)
  h.Add(small);
  const int e0 = h.exponent();
  EXPECT_EQ(h.count(), 1000u);
  const float big[] = {1000.0f, -3.5f};
  h.Add(big, 2);
  EXPECT_GT(h.exponent(), e0);
  EXPECT_EQ(h.count(), 1002u);
  uint64_t total = 0;
  for (uint64_t c : h.bins()) total += c;
  EXPECT_EQ(total, 1002u);
  // Every value is counted in the bin whose [lower, lower + width) holds it.
  std::vector<uint64_t> expect(h.bins().size(), 0);
  for (float x : small) expect[static_cast<size_t>(std::floor((x - h.lower(0)) / h.bin_width()))]++;
  for (float x : big) expect[static_cast<size_t>(std::floor((x - h.lower(0)) / h.bin_width()))]++;
  EXPECT_EQ(h.bins(), expect);
  EXPECT_EQ(h.min(), -3.5f);
  EXPECT_EQ(h.max(), 1000.0f);
}

TEST(Histogram, ValuesOnBinEdgesAndTinyNegativesLandInTheRightBin) {
  Histogram h(16);
  const float v[] = {-8.0f, 7.0f, -1e-30f, 0.0f, 2.0f};  // width 1: edges at integers
  h.Add(v, 5);
  ASSERT_EQ(h.bin_width(), 1.0);
  EXPECT_EQ(h.first_bin(), -8);
  EXPECT_EQ(h.bins()[0], 1u);       // [-8, -7)
  EXPECT_EQ(h.bins()[7], 1u);       // [-1, 0): the tiny negative
  EXPECT_EQ(h.bins()[8], 1u);       // [0, 1)
  EXPECT_EQ(h.bins()[10], 1u);      // [2, 3)
  EXPECT_EQ(h.bins()[15], 1u);      // [7, 8)
}

// Every value lands in bin floor(x * 2^-e) - first_bin, computed here in double: through the
// vectorised float path (grids near 0, including tiny negatives whose scaled value underflows to
// -0) and the double path (grids far from 0), with zeros, edges and NaN/Inf mixed in.
TEST(Histogram, EveryValueLandsInTheBinOfItsExactFloor) {
  std::mt19937 rng(17);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const std::vector<std::pair<float, float>> grids = {{0.0f, 600.0f}, {1000.0f, 0.25f}, {-3e6f, 1.0f}, {0.0f, 1e-3f}};
  for (const auto& [offset, scale] : grids) {
    std::vector<float> v(10007);
    for (size_t i = 0; i < v.size(); ++i) {
      switch (i % 11) {
        case 0: v[i] = -1e-45f; break;                     // scaled: underflows to -0 on coarse grids
        case 1: v[i] = 0.0f; break;
        case 2: v[i] = offset + std::ldexp(1.0f, -2); break;  // on an edge of fine grids
        case 3: v[i] = i % 2 ? kNaN : kInf; break;
        case 4: v[i] = 1e-44f; break;
        default: v[i] = offset + normal(rng) * scale;
      }
    }
    Histogram h;
    h.Add(v);
    std::vector<uint64_t> want(h.bins().size(), 0);
    for (float x : v) {
      if (!std::isfinite(x)) continue;
      const int64_t j = static_cast<int64_t>(std::floor(std::ldexp(static_cast<double>(x), -h.exponent()))) - h.first_bin();
      ASSERT_GE(j, 0) << x;
      ASSERT_LT(j, static_cast<int64_t>(want.size())) << x;
      ++want[static_cast<size_t>(j)];
    }
    EXPECT_EQ(h.bins(), want) << "grid offset " << offset << " scale " << scale;
  }
}

TEST(Histogram, ExtremeRangesDoNotOverflow) {
  Histogram h;
  const float v[] = {1e-45f, -std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), 0.0f};
  for (float x : v) h.Add(&x, 1);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.min(), -std::numeric_limits<float>::max());
  Histogram once;
  once.Add(v, 4);
  ExpectIdentical(h, once);
  Histogram tiny, huge;  // shards whose grids are more than 63 doublings apart
  tiny.Add(v, 1);
  huge.Add(v + 1, 3);
  tiny.Merge(huge);
  ExpectIdentical(tiny, once);
  Histogram constant;
  const std::vector<float> c(100, 0.5f);
  constant.Add(c);
  EXPECT_EQ(constant.bins()[0], 100u);
  EXPECT_EQ(constant.mean(), 0.5);
  EXPECT_EQ(constant.stddev(), 0.0);
}

TEST(Histogram, NanAndInfAreCountedAndExcluded) {
  Histogram h;
  const float v[] = {1.0f, kNaN, kInf, -kInf, kInf, -2.0f, kNaN, 0.0f, -0.0f};
  h.Add(v, 9);
  EXPECT_EQ(h.count(), 4u);
  EXPECT_EQ(h.zero_count(), 2u);
  EXPECT_EQ(h.nan_count(), 2u);
  EXPECT_EQ(h.pos_inf_count(), 2u);
  EXPECT_EQ(h.neg_inf_count(), 1u);
  EXPECT_EQ(h.min(), -2.0f);
  EXPECT_EQ(h.max(), 1.0f);
  EXPECT_NEAR(h.mean(), -0.25, h.bin_width() / 2);
  EXPECT_TRUE(h == Histogram::FromJson(h.ToJson()));
  Histogram only_bad;
  only_bad.Add(v + 1, 3);
  EXPECT_TRUE(only_bad.empty());
  EXPECT_EQ(only_bad.nan_count(), 1u);
}

// mean and std come from bin centres: within half a bin width of the exact values.
TEST(Histogram, MeanAndStdAreWithinHalfABinOfTheExactValues) {
  const std::vector<float> v = MixedStream(50000, 5);
  Histogram h;
  h.Add(v);
  long double sum = 0, sq = 0;
  int64_t n = 0;
  for (float x : v) {
    if (!std::isfinite(x)) continue;
    sum += x;
    sq += static_cast<long double>(x) * x;
    ++n;
  }
  const double mean = static_cast<double>(sum / n);
  const double std = std::sqrt(static_cast<double>(sq / n) - mean * mean);
  EXPECT_NEAR(h.mean(), mean, h.bin_width() / 2);
  EXPECT_NEAR(h.stddev(), std, h.bin_width());
}

TEST(Histogram, JsonRoundTripIsExactAndCompact) {
  Histogram h;
  h.Add(MixedStream(100000, 11));
  const nlohmann::json j = h.ToJson();
  ExpectIdentical(Histogram::FromJson(nlohmann::json::parse(j.dump())), h);
  Histogram sparse;
  const float v[] = {-50.0f, 0.25f, 0.5f, 50.0f};
  sparse.Add(v, 4);
  const nlohmann::json s = sparse.ToJson();
  EXPECT_LE(s["counts"].size(), 8u) << s["counts"].dump();  // zero runs are written as -k
  ExpectIdentical(Histogram::FromJson(s), sparse);
  Histogram empty;
  ExpectIdentical(Histogram::FromJson(empty.ToJson()), empty);
}

std::string InputErrorOf(const nlohmann::json& j) {
  try {
    Histogram::FromJson(j, "tensor 'x' histogram");
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInput);
    return e.what();
  }
  return "no error";
}

TEST(Histogram, BadJsonNamesTheField) {
  Histogram h;
  const float v[] = {-1.0f, 0.5f, 2.0f};
  h.Add(v, 3);
  const nlohmann::json good = h.ToJson();
  EXPECT_NE(InputErrorOf(nlohmann::json::array()).find("tensor 'x' histogram: expected a JSON object"), std::string::npos);
  auto broken = [&](const char* field, const nlohmann::json& value) {
    nlohmann::json j = good;
    if (value.is_null()) j.erase(field);
    else j[field] = value;
    return InputErrorOf(j);
  };
  EXPECT_NE(broken("counts", nullptr).find("field 'counts' is missing"), std::string::npos);
  EXPECT_NE(broken("counts", "many").find("field 'counts' must be an array"), std::string::npos);
  EXPECT_NE(broken("counts", {1, 2}).find("field 'counts'"), std::string::npos);
  EXPECT_NE(broken("count", -3).find("field 'count' must be a non-negative integer"), std::string::npos);
  EXPECT_NE(broken("exponent", 3).find("field 'exponent'"), std::string::npos);
  EXPECT_NE(broken("first_bin", 1).find("field 'first_bin'"), std::string::npos);
  EXPECT_NE(broken("min", 0.1).find("field 'min' must be a float32"), std::string::npos);
  EXPECT_NE(broken("zeros", 5).find("field 'zeros'"), std::string::npos);
  EXPECT_NE(broken("num_bins", 1).find("field 'num_bins'"), std::string::npos);
}

TEST(Histogram, MergingDifferentBinCountsIsAnError) {
  Histogram a(2048), b(4096);
  EXPECT_THROW(a.Merge(b), Error);
}

}  // namespace
}  // namespace ptq
