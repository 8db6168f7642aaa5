// Tests of the streaming histogram: exact merging of shards, widening, NaN/Inf, moments, JSON.
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
  EXPECT_EQ(Bits(a.sum()), Bits(b.sum()));
  EXPECT_EQ(Bits(a.sum_sq()), Bits(b.sum_sq()));
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
  EXPECT_EQ(h.sum(), -1.0);
  EXPECT_EQ(h.sum_sq(), 5.0);
  EXPECT_TRUE(h == Histogram::FromJson(h.ToJson()));
  Histogram only_bad;
  only_bad.Add(v + 1, 3);
  EXPECT_TRUE(only_bad.empty());
  EXPECT_EQ(only_bad.nan_count(), 1u);
}

TEST(Histogram, MomentsAreExact) {
  Histogram h;
  // A naive running sum loses 0.1 - 0.3 to the 3e20 terms; the exact sum keeps it.
  std::vector<float> v = {0.1f, -0.3f, 1e-40f, 3e20f, -3e20f, 7.0f};
  h.Add(v);
  long double sum = 0, sq = 0;
  for (float x : {3e20f, -3e20f, 0.1f, -0.3f, 1e-40f, 7.0f}) {
    sum += x;
    sq += static_cast<long double>(x) * x;
  }
  EXPECT_DOUBLE_EQ(h.sum(), static_cast<double>(sum));
  EXPECT_DOUBLE_EQ(h.sum_sq(), static_cast<double>(sq));
  EXPECT_NEAR(h.mean(), static_cast<double>(sum) / 6, 1e-12);
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
  EXPECT_NE(broken("moments", {{0, "1x", "2"}}).find("field 'moments'"), std::string::npos);
}

TEST(Histogram, MergingDifferentBinCountsIsAnError) {
  Histogram a(2048), b(4096);
  EXPECT_THROW(a.Merge(b), Error);
}

}  // namespace
}  // namespace ptq
