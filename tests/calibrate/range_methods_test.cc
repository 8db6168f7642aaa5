// Tests of the four range methods on synthetic data with known answers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "calibrate/entropy_method.h"
#include "calibrate/histogram.h"
#include "calibrate/range_method.h"
#include "runtime/error.h"

namespace ptq {
namespace {

// Phi^-1(0.99995): both the 99.99th percentile of |x| and the upper 0.005% tail of N(0, 1).
constexpr double kGaussianQuantile9999 = 3.890592;

std::vector<float> Gaussian(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(n);
  for (auto& x : v) x = normal(rng);
  return v;
}

double EmpiricalQuantile(std::vector<float> v, double q) {
  const size_t k = static_cast<size_t>(q * static_cast<double>(v.size()));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

// 1e6 samples of N(0, 1) plus 4 outliers: two at -50, two at +50.
std::vector<float> GaussianWithOutlierValues() {
  std::vector<float> v = Gaussian(1000000, 42);
  v.insert(v.end(), {50.0f, -50.0f, 50.0f, -50.0f});
  return v;
}

const Histogram& GaussianWithOutliers() {
  static const Histogram h = [] {
    Histogram hist;
    hist.Add(GaussianWithOutlierValues());
    return hist;
  }();
  return h;
}

// The empirical 99.99th percentile of |x| of GaussianWithOutlierValues().
double AbsQuantile() {
  std::vector<float> v = GaussianWithOutlierValues();
  for (auto& x : v) x = std::fabs(x);
  return EmpiricalQuantile(v, 0.9999);
}

Range Choose(const std::string& method, const Histogram& h, bool symmetric, double percentile = 99.99) {
  RangeOptions o;
  o.symmetric = symmetric;
  o.percentile = percentile;
  return MakeRangeMethod(method)->Choose(h, o);
}

// E[(x - Q(x))^2] for x ~ N(0, 1) (weight 1) plus point masses, for the uniform quantizer with
// step s = t / steps on the levels k * s, k in [kmin, kmax] (round to nearest, saturate). Exact per
// cell: integral over [a, b) of (x - r)^2 phi(x) = [(1 + r^2) Phi(x) + (2r - x) phi(x)] from a to b.
double QuantizerMse(double t, int kmin, int kmax, int steps, const std::vector<std::pair<double, double>>& masses) {
  const double s = t / steps;
  auto phi = [](double x) { return std::isinf(x) ? 0.0 : std::exp(-x * x / 2) / std::sqrt(2 * M_PI); };
  auto cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  auto antiderivative = [&](double x, double r) {
    return (1 + r * r) * cdf(x) + (std::isinf(x) ? 0.0 : (2 * r - x) * phi(x));
  };
  double mse = 0;
  for (int k = kmin; k <= kmax; ++k) {
    const double r = k * s;
    const double a = k == kmin ? -INFINITY : (k - 0.5) * s, b = k == kmax ? INFINITY : (k + 0.5) * s;
    mse += antiderivative(b, r) - antiderivative(a, r);
  }
  for (const auto& m : masses) {
    const double q = std::min(std::max(std::nearbyint(m.first / s), double(kmin)), double(kmax)) * s;
    mse += m.second * (m.first - q) * (m.first - q);
  }
  return mse;
}

// The t in [lo, hi] (scanned in steps of 0.005) minimising QuantizerMse.
double BruteForceOptimum(double lo, double hi, int kmin, int kmax, int steps,
                         const std::vector<std::pair<double, double>>& masses) {
  double best_t = lo, best = INFINITY;
  for (double t = lo; t <= hi; t += 0.005) {
    const double e = QuantizerMse(t, kmin, kmax, steps, masses);
    if (e < best) {
      best = e;
      best_t = t;
    }
  }
  return best_t;
}

TEST(RangeMethods, GaussianWithOutliers) {
  const Histogram& h = GaussianWithOutliers();
  const double bin = h.bin_width();
  const Range minmax = Choose("minmax", h, true);
  EXPECT_EQ(minmax.min, -50.0f);
  EXPECT_EQ(minmax.max, 50.0f);
  const Range asym = Choose("minmax", h, false);
  EXPECT_EQ(asym.min, -50.0f);
  EXPECT_EQ(asym.max, 50.0f);

  const Range pct = Choose("percentile", h, true);
  EXPECT_NEAR(pct.max, kGaussianQuantile9999, 2 * bin);
  EXPECT_NEAR(pct.max, AbsQuantile(), 2 * bin);
  EXPECT_EQ(pct.min, -pct.max);
  const Range pct_asym = Choose("percentile", h, false);
  EXPECT_NEAR(pct_asym.max, kGaussianQuantile9999, 2 * bin);
  EXPECT_NEAR(pct_asym.min, -kGaussianQuantile9999, 2 * bin);

  const Range entropy = Choose("entropy", h, true);
  EXPECT_GT(entropy.max, 2.5f);
  EXPECT_LT(entropy.max, 10.0f);  // the outliers at 50 are clipped
  const Range entropy_asym = Choose("entropy", h, false);
  EXPECT_EQ(entropy_asym.max, entropy.max);
  EXPECT_EQ(entropy_asym.min, entropy.min);

  // Squared error weighs the 4 outliers (each (50 - t)^2) against the rounding error of 1e6 values:
  // the optimum clips them but stays well above the pure Gaussian's 3.92.
  const double n = 1e6;
  const double mix_opt = BruteForceOptimum(3.0, 50.0, -127, 127, 127, {{50.0, 2 / n}, {-50.0, 2 / n}});
  const Range mse = Choose("mse", h, true);
  EXPECT_LT(mse.max, 30.0f);
  EXPECT_NEAR(mse.max, mix_opt, 0.05 * mix_opt) << "brute-force optimum " << mix_opt;
  EXPECT_EQ(mse.min, -mse.max);
  const Range mse_asym = Choose("mse", h, false);
  EXPECT_NEAR(mse_asym.max, -mse_asym.min, 2 * bin);
  EXPECT_LT(mse_asym.max, 30.0f);
}

TEST(RangeMethods, MseMatchesTheAnalyticOptimumForAUnitGaussian) {
  Histogram h;
  h.Add(Gaussian(1000000, 5));
  const double optimum = BruteForceOptimum(3.0, 5.0, -127, 127, 127, {});  // 3.92 (numpy agrees)
  EXPECT_NEAR(optimum, 3.92, 0.02);
  const Range mse = Choose("mse", h, true);
  EXPECT_NEAR(mse.max, optimum, 0.05 * optimum);
  // Asymmetric uint8 over [lo, hi]: 255 steps, the same optimum for symmetric data (2t / 255 vs t / 127).
  const Range mse_asym = Choose("mse", h, false);
  EXPECT_NEAR(mse_asym.max, optimum, 0.05 * optimum);
  EXPECT_NEAR(mse_asym.min, -optimum, 0.05 * optimum);
}

TEST(RangeMethods, UniformDataKeepsTheFullRange) {
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> v(1000000);
  for (auto& x : v) x = u(rng);
  Histogram h;
  h.Add(v);
  for (const std::string method : {"minmax", "percentile", "entropy", "mse"}) {
    for (bool symmetric : {true, false}) {
      const Range r = Choose(method, h, symmetric);
      EXPECT_NEAR(r.max, 1.0, 0.01) << method << (symmetric ? " symmetric" : " asymmetric");
      EXPECT_NEAR(r.min, -1.0, 0.01) << method << (symmetric ? " symmetric" : " asymmetric");
    }
  }
}

TEST(RangeMethods, ReluLikeDataGivesOneSidedAsymmetricRanges) {
  std::vector<float> v = Gaussian(1000000, 13);
  for (auto& x : v) x = std::max(x, 0.0f);
  Histogram h;
  h.Add(v);
  EXPECT_EQ(Choose("minmax", h, false).min, 0.0f);
  EXPECT_EQ(Choose("minmax", h, false).max, h.max());
  EXPECT_EQ(Choose("minmax", h, true).min, -h.max());
  const Range pct = Choose("percentile", h, false);
  EXPECT_NEAR(pct.min, 0.0f, h.bin_width());  // inside the bin [0, w) that holds the zeros
  EXPECT_NEAR(pct.max, EmpiricalQuantile(v, 0.99995), 2 * h.bin_width());
  EXPECT_NEAR(pct.max, kGaussianQuantile9999, 0.1);  // sampling noise of a 0.005% tail is ~0.035
  const Range entropy = Choose("entropy", h, false);
  EXPECT_EQ(entropy.min, 0.0f);
  EXPECT_GT(entropy.max, 2.0f);
  EXPECT_LE(entropy.max, h.max());
  // uint8 over [0, t]: step t / 255 on levels 0..255; half the mass sits exactly at 0 (no error).
  const double optimum = BruteForceOptimum(3.0, 5.0, 0, 255, 255, {});
  const Range mse = Choose("mse", h, false);
  EXPECT_EQ(mse.min, 0.0f);
  EXPECT_NEAR(mse.max, optimum, 0.05 * optimum) << "brute-force optimum " << optimum;
}

TEST(RangeMethods, EmptyAndConstantHistograms) {
  Histogram empty;
  for (const auto& name : RangeMethodNames()) {
    const Range r = Choose(name, empty, false);
    EXPECT_EQ(r.min, 0.0f);
    EXPECT_EQ(r.max, 0.0f);
  }
  Histogram constant;
  constant.Add(std::vector<float>(1000, 2.5f));
  for (const auto& name : RangeMethodNames()) {
    const Range r = Choose(name, constant, false);
    EXPECT_EQ(r.min, 2.5f) << name;
    EXPECT_EQ(r.max, 2.5f) << name;
    const Range s = Choose(name, constant, true);
    EXPECT_LE(s.max, 2.5f) << name;
    EXPECT_GE(s.max, 2.4f) << name;
  }
}

TEST(RangeMethods, EntropySearchesEveryCandidate) {
  // At most `levels` bins: nothing to clip.
  EXPECT_EQ(EntropyMethod::BestThresholdBins(std::vector<double>(100, 1.0), 128), 100u);
  // Flat density: clipping piles mass into the last bin, so the full range wins.
  EXPECT_EQ(EntropyMethod::BestThresholdBins(std::vector<double>(2048, 1.0), 128), 2048u);
  // A flat bulk and a far, tiny spike: no candidate loses resolution in the bulk, so nothing is
  // gained by clipping the spike.
  std::vector<double> c(2048, 0.0);
  for (int i = 0; i < 300; ++i) c[i] = 1000.0;
  c[2000] = 1.0;
  EXPECT_GT(EntropyMethod::BestThresholdBins(c, 128), 2000u);  // every candidate past the spike has KL 0
  // A decaying bulk (exp(-i/50)) and the same spike: merging the bulk into 128 levels over the full
  // range loses information, so a threshold inside the bulk wins and the spike is clipped.
  for (int i = 0; i < 1000; ++i) c[i] = 1e6 * std::exp(-i / 50.0);
  const size_t best = EntropyMethod::BestThresholdBins(c, 128);
  EXPECT_GT(best, 128u);
  EXPECT_LT(best, 1000u);
}

TEST(RangeMethods, UnknownMethodAndBadOptionsAreUsageErrors) {
  try {
    MakeRangeMethod("kl");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUsage);
    EXPECT_NE(std::string(e.what()).find("minmax, percentile, entropy, mse"), std::string::npos) << e.what();
  }
  Histogram h;
  h.Add(Gaussian(100, 1));
  RangeOptions o;
  o.percentile = 0.0;
  EXPECT_THROW(MakeRangeMethod("percentile")->Choose(h, o), Error);
  o.percentile = 101.0;
  EXPECT_THROW(MakeRangeMethod("percentile")->Choose(h, o), Error);
  for (const auto& name : RangeMethodNames()) EXPECT_EQ(MakeRangeMethod(name)->name(), name);
}

}  // namespace
}  // namespace ptq
