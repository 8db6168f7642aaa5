// Tests of GemmF32Avx2, with the AVX2 and (where the CPU has them) AVX-512 kernels, against a
// double-accumulating reference (shapes, transposes, strides, alpha, beta, NaN in C with beta == 0,
// reads past the operands); of its bit-for-bit independence from M, thread count and kernels; and of
// the PTQ_CPU override of CPU feature detection.
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

#include <gtest/gtest.h>
#include <omp.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/cpu_features.h"

namespace ptq {
namespace {

// Error bound, relative to |alpha| * sum_k |a||b| + |beta * c|. Summing K products in float with one
// rounding per FMA errs by at most about K * u * sum |a||b| (u = 2^-24, the standard gamma_K bound);
// the K-block combination, the alpha product and the beta FMA add a few roundings more. kGemmTolerance
// * (K + 4) with kGemmTolerance = 2^-23 = 2u is that worst case with a factor 2 to spare, while a wrong
// or missing term (of size ~ sum / K) still exceeds it by orders of magnitude.
constexpr double kGemmTolerance = std::numeric_limits<float>::epsilon();
constexpr float kPadding = -12345.0f;  // C entries between N and ldc: must stay untouched

#define PTQ_REQUIRE_AVX2()                                                              \
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the CPU lacks AVX2/FMA (or PTQ_CPU=baseline)"

// The kernel sets this CPU can run.
std::vector<F32Kernels> RunnableKernels() {
  std::vector<F32Kernels> out{F32Kernels::kAvx2};
  if (GetCpuFeatures().avx512f) out.push_back(F32Kernels::kAvx512);
  return out;
}

const char* Name(F32Kernels k) { return k == F32Kernels::kAvx512 ? "avx512" : "avx2"; }

// n floats ending right before an inaccessible page, so that a read past the end crashes the test.
class GuardedFloats {
 public:
  explicit GuardedFloats(size_t n) {
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    const size_t data_bytes = (n * sizeof(float) + page - 1) / page * page;
    bytes_ = data_bytes + page;
    base_ = static_cast<char*>(mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
    if (base_ == MAP_FAILED || mprotect(base_ + data_bytes, page, PROT_NONE) != 0) std::abort();
    data_ = reinterpret_cast<float*>(base_ + data_bytes) - n;
  }
  GuardedFloats(const GuardedFloats&) = delete;
  GuardedFloats& operator=(const GuardedFloats&) = delete;
  ~GuardedFloats() { munmap(base_, bytes_); }
  float* data() const { return data_; }

 private:
  char* base_;
  size_t bytes_;
  float* data_;
};

// A row-major [rows, cols] matrix of random values in [-1, 1] with row stride ld = cols + pad, its
// last element the last before a guard page; fill_outside between the rows, so that a read of the
// gaps would show in the product.
struct Matrix {
  int64_t rows, cols, ld;
  size_t size;
  GuardedFloats storage;
  float* data;
  Matrix(int64_t r, int64_t c, int64_t pad, std::mt19937& rng, float fill_outside)
      : rows(r), cols(c), ld(c + pad), size(static_cast<size_t>((r - 1) * (c + pad) + c)), storage(size),
        data(storage.data()) {
    std::fill(data, data + size, fill_outside);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (int64_t i = 0; i < r; ++i) {
      for (int64_t j = 0; j < c; ++j) data[i * ld + j] = dist(rng);
    }
  }
  float at(int64_t i, int64_t j) const { return data[i * ld + j]; }
};

struct GemmCase {
  bool trans_a, trans_b;
  int64_t M, N, K;
  float alpha, beta;
  F32Kernels kernels;
};

// Runs one case on fresh random data and checks every C entry against the reference (and the padding).
void CheckCase(const GemmCase& g, std::mt19937& rng) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Matrix a(g.trans_a ? g.K : g.M, g.trans_a ? g.M : g.K, g.trans_a ? 3 : 5, rng, nan);
  const Matrix b(g.trans_b ? g.N : g.K, g.trans_b ? g.K : g.N, g.trans_b ? 7 : 2, rng, nan);
  Matrix c(g.M, g.N, 4, rng, kPadding);
  if (g.beta == 0.0f) {
    for (int64_t i = 0; i < g.M; ++i) {
      for (int64_t j = 0; j < g.N; ++j) c.data[i * c.ld + j] = nan;  // must not leak
    }
  }
  const std::vector<float> c0(c.data, c.data + c.size);
  GemmF32Avx2(g.trans_a, g.trans_b, g.M, g.N, g.K, g.alpha, a.data, a.ld, b.data, b.ld, g.beta, c.data, c.ld,
              g.kernels);
  const std::string where = "M=" + std::to_string(g.M) + " N=" + std::to_string(g.N) + " K=" + std::to_string(g.K) +
                            " trans_a=" + std::to_string(g.trans_a) + " trans_b=" + std::to_string(g.trans_b) +
                            " beta=" + std::to_string(g.beta) + " " + Name(g.kernels);
  int failures = 0;
  for (int64_t m = 0; m < g.M; ++m) {
    for (int64_t n = 0; n < g.N; ++n) {
      double sum = 0.0, magnitude = 0.0;
      for (int64_t k = 0; k < g.K; ++k) {
        const double p = double(g.trans_a ? a.at(k, m) : a.at(m, k)) * double(g.trans_b ? b.at(n, k) : b.at(k, n));
        sum += p;
        magnitude += std::fabs(p);
      }
      double expected = double(g.alpha) * sum;
      magnitude *= std::fabs(g.alpha);
      if (g.beta != 0.0f) {
        const double old = c0[static_cast<size_t>(m * c.ld + n)];
        expected += double(g.beta) * old;
        magnitude += std::fabs(double(g.beta) * old);
      }
      const double tolerance = kGemmTolerance * double(g.K + 4) * magnitude;
      const float got = c.at(m, n);
      if (!(std::fabs(got - expected) <= tolerance) && ++failures <= 5) {
        ADD_FAILURE() << where << ": C(" << m << ", " << n << ") = " << got << ", expected " << expected << " +- "
                      << tolerance;
      }
    }
    for (int64_t n = g.N; n < c.ld && m + 1 < g.M; ++n) {  // the gap after each row but the last
      if (c.at(m, n) != kPadding && ++failures <= 5) ADD_FAILURE() << where << ": wrote padding at " << m << ", " << n;
    }
  }
}

class GemmF32Avx2Sweep : public ::testing::TestWithParam<std::tuple<bool, bool, F32Kernels>> {};

TEST_P(GemmF32Avx2Sweep, MatchesDoubleReference) {
  PTQ_REQUIRE_AVX2();
  const auto [trans_a, trans_b, kernels] = GetParam();
  if (kernels == F32Kernels::kAvx512 && !GetCpuFeatures().avx512f) GTEST_SKIP() << "the CPU lacks AVX-512F";
  std::mt19937 rng(trans_a * 2 + trans_b + 1);
  const float betas[] = {0.0f, 1.0f, 0.5f};
  const float alphas[] = {1.0f, -0.75f, 1.5f, 2.0f};
  int index = 0;
  for (int64_t M : {1, 2, 5, 6, 7, 13, 64, 130}) {
    for (int64_t N : {1, 3, 15, 16, 17, 33, 100}) {
      for (int64_t K : {1, 2, 7, 64, 255, 300, 513}) {
        // Cycling beta and alpha at different periods covers each with every shape family.
        CheckCase({trans_a, trans_b, M, N, K, alphas[index % 4], betas[index % 3], kernels}, rng);
        ++index;
        if (HasFailure()) return;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllTransposes, GemmF32Avx2Sweep,
                         ::testing::Combine(::testing::Bool(), ::testing::Bool(),
                                            ::testing::Values(F32Kernels::kAvx2, F32Kernels::kAvx512)),
                         [](const auto& info) {  // e.g. "At_B_avx2" for trans_a, not trans_b, AVX2 kernels
                           return std::string(std::get<0>(info.param) ? "At_" : "A_") +
                                  (std::get<1>(info.param) ? "Bt_" : "B_") + Name(std::get<2>(info.param));
                         });

TEST(GemmF32Avx2, WideNEdgeAndPartialKBlocks) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(42);
  for (F32Kernels kernels : RunnableKernels()) {
    for (bool trans_b : {false, true}) {
      // N past two N blocks (256 columns each) with an edge; K over several K blocks; wide 1- and 2-row tiles.
      for (int64_t M : {1, 2, 3, 13, 25}) CheckCase({false, trans_b, M, 600, 777, 0.5f, 1.0f, kernels}, rng);
    }
  }
}

// C for all M rows of fixed random A, B, C (beta = 0.5 so C is read; K over two K blocks).
std::vector<float> RowsOf(bool trans_a, bool trans_b, int64_t M, int64_t row0, const Matrix& a, const Matrix& b,
                          const Matrix& c, F32Kernels kernels) {
  std::vector<float> out(c.data + row0 * c.ld, c.data + (row0 + M - 1) * c.ld + c.cols);
  const float* pa = trans_a ? a.data + row0 : a.data + row0 * a.ld;
  GemmF32Avx2(trans_a, trans_b, M, c.cols, trans_b ? b.cols : b.rows, 1.25f, pa, a.ld, b.data, b.ld, 0.5f,
              out.data(), c.ld, kernels);
  return out;
}

// Also across kernel sets: every row is compared with the AVX2 kernels' result for it alone.
TEST(GemmF32Avx2, RowResultsDoNotDependOnMOrKernels) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(7);
  constexpr int64_t kRows = 130, kN = 33, kK = 300, kRow = 5;
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      const Matrix a(trans_a ? kK : kRows, trans_a ? kRows : kK, 1, rng, 0.0f);
      const Matrix b(trans_b ? kN : kK, trans_b ? kK : kN, 1, rng, 0.0f);
      const Matrix c(kRows, kN, 1, rng, 0.0f);
      const std::vector<float> alone = RowsOf(trans_a, trans_b, 1, kRow, a, b, c, F32Kernels::kAvx2);
      // Row kRow alone and inside batches of other sizes, at other positions in the 6-row tiles, with
      // B packed or read in place.
      for (F32Kernels kernels : RunnableKernels()) {
        for (int64_t M : {1, 2, 6, 13, 30, 130}) {
          for (int64_t row0 : {int64_t{0}, kRow - 1, kRow}) {
            if (row0 + M > kRows || kRow >= row0 + M) continue;
            const std::vector<float> batch = RowsOf(trans_a, trans_b, M, row0, a, b, c, kernels);
            EXPECT_EQ(0, std::memcmp(alone.data(), batch.data() + (kRow - row0) * c.ld, kN * sizeof(float)))
                << "trans_a=" << trans_a << " trans_b=" << trans_b << " M=" << M << " row0=" << row0 << " "
                << Name(kernels);
          }
        }
      }
    }
  }
}

// Columns at an N edge of 8 or fewer (N = 20, 24: half a panel, one vector per row) get the bits the full
// 16-column kernels give them when N is 32 (B and C the first columns of the same matrices), with B packed or
// read in place, A transposed or not, with the epilogue (column bias, residual, clamp).
TEST(GemmF32Avx2, HalfPanelEdgesHaveTheBitsOfFullPanels) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(9);
  constexpr int64_t kK = 70, kWide = 32;
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {  // a transposed B is always packed; this B in place otherwise
      for (int64_t M : {1, 5, 6, 13, 40}) {
        const Matrix a(trans_a ? kK : M, trans_a ? M : kK, 1, rng, 0.0f);
        const Matrix b(trans_b ? kWide : kK, trans_b ? kK : kWide, 1, rng, 0.0f);
        const Matrix bias(1, kWide, 1, rng, 0.0f);
        const Matrix sum(M, kWide, 1, rng, 0.0f);
        GemmEpilogue<float> e;
        e.col_bias = bias.data;
        e.sum = sum.data;
        e.ld_sum = sum.ld;
        e.clamp = true;
        e.lo = -1.0f;
        e.hi = 1.5f;
        std::vector<float> wide(static_cast<size_t>(M * kWide));
        GemmF32Avx2(trans_a, trans_b, M, kWide, kK, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, wide.data(), kWide,
                    F32Kernels::kAvx2, e);
        for (int64_t N : {20, 24}) {
          std::vector<float> narrow(static_cast<size_t>(M * kWide));
          GemmF32Avx2(trans_a, trans_b, M, N, kK, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, narrow.data(), kWide,
                      F32Kernels::kAvx2, e);
          for (int64_t r = 0; r < M; ++r) {
            EXPECT_EQ(0, std::memcmp(wide.data() + r * kWide, narrow.data() + r * kWide, N * sizeof(float)))
                << "trans_a=" << trans_a << " trans_b=" << trans_b << " M=" << M << " N=" << N << " row " << r;
          }
        }
      }
    }
  }
}

// The epilogue with a row bias or a column bias, a residual matrix, then the clamp, equals beta = 1 over a
// C holding that bias, then the residual added, then the clamp, bit for bit, on every kernel, with B
// packed (large M) or in place, across several K blocks and an N edge.
TEST(GemmF32Avx2, EpilogueAddsRowOrColumnBiasAndResidualThenClamps) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (int64_t M : {int64_t{3}, int64_t{70}}) {
    constexpr int64_t kN = 37, kK = 700;
    const Matrix a(M, kK, 0, rng, 0.0f), b(kK, kN, 0, rng, 0.0f);
    std::vector<float> row_bias(static_cast<size_t>(M)), col_bias(kN), residual(static_cast<size_t>(M * (kN + 3)));
    for (float& v : row_bias) v = d(rng);
    for (float& v : col_bias) v = d(rng);
    for (float& v : residual) v = d(rng);
    for (F32Kernels kernels : RunnableKernels()) {
      for (bool by_column : {false, true}) {
        std::vector<float> want(static_cast<size_t>(M * kN)), got(want.size());
        for (int64_t m = 0; m < M; ++m) {
          for (int64_t n = 0; n < kN; ++n) want[m * kN + n] = by_column ? col_bias[n] : row_bias[m];
        }
        GemmF32Avx2(false, false, M, kN, kK, 0.5f, a.data, a.ld, b.data, b.ld, 1.0f, want.data(), kN, kernels);
        GemmEpilogue<float> epi;
        (by_column ? epi.col_bias : epi.row_bias) = by_column ? col_bias.data() : row_bias.data();
        epi.sum = residual.data();
        epi.ld_sum = kN + 3;
        epi.clamp = true;
        epi.lo = -0.4f;
        epi.hi = 0.3f;
        GemmF32Avx2(false, false, M, kN, kK, 0.5f, a.data, a.ld, b.data, b.ld, 0.0f, got.data(), kN, kernels, epi);
        int clamped = 0;
        for (size_t i = 0; i < want.size(); ++i) {
          const float v = want[i] + residual[i / kN * (kN + 3) + i % kN];
          const float w = std::min(std::max(v, epi.lo), epi.hi);
          clamped += w != v;
          ASSERT_EQ(got[i], w) << Name(kernels) << " M=" << M << " by_column=" << by_column << " at " << i;
        }
        EXPECT_GT(clamped, 0);
      }
    }
  }
}

// B packed once gives the bits of B packed (or read in place) on every call: several N and K blocks,
// partial panels, transposed or not, with an epilogue, alone and in threads.
TEST(GemmF32Avx2, PrepackedBGivesTheSameBits) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(17);
  constexpr int64_t kN = 1100, kK = 530;  // 5 N blocks (the last partial), 3 K blocks
  std::vector<float> bias(kN);
  for (size_t i = 0; i < bias.size(); ++i) bias[i] = 0.01f * static_cast<float>(i % 17);
  for (bool trans_b : {false, true}) {
    const Matrix b(trans_b ? kN : kK, trans_b ? kK : kN, 0, rng, 0.0f);
    const PackedF32B packed = PackF32B(trans_b, kK, kN, b.data, b.ld);
    for (int64_t M : {1, 7, 50}) {
      const Matrix a(M, kK, 0, rng, 0.0f);
      for (F32Kernels kernels : RunnableKernels()) {
        GemmEpilogue<float> epi;
        epi.col_bias = bias.data();
        std::vector<float> want(static_cast<size_t>(M * kN)), got(want.size());
        GemmF32Avx2(false, trans_b, M, kN, kK, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, want.data(), kN, kernels, epi);
        GemmF32Avx2Packed(M, 1.0f, a.data, a.ld, packed, 0.0f, got.data(), kN, kernels, epi);
        EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
            << "trans_b=" << trans_b << " M=" << M << " " << Name(kernels);
      }
    }
  }
}

// A product over K = 1000 (4 K blocks of 250) taken as K ranges [0, 250), [250, 750), [750, 1000), A given a
// slice of columns at a time, has the bits of one call: the bias in the first block, the residual and clamp
// in the last.
TEST(GemmF32Avx2, KRangesOfThePackedProductGiveTheBitsOfOneCall) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(19);
  constexpr int64_t kN = 70, kK = 1000;
  ASSERT_EQ(F32GemmKBlock(kK), 250);
  const Matrix b(kK, kN, 0, rng, 0.0f), bias(1, kN, 0, rng, 0.0f);
  const PackedF32B packed = PackF32B(false, kK, kN, b.data, b.ld);
  for (int64_t M : {1, 9, 40}) {
    const Matrix a(M, kK, 0, rng, 0.0f), sum(M, kN, 0, rng, 0.0f);
    for (F32Kernels kernels : RunnableKernels()) {
      GemmEpilogue<float> epi;
      epi.col_bias = bias.data;
      epi.sum = sum.data;
      epi.ld_sum = kN;
      epi.clamp = true;
      epi.lo = -2.0f;
      epi.hi = 3.0f;
      std::vector<float> want(static_cast<size_t>(M * kN)), got(want.size());
      GemmF32Avx2Packed(M, 1.0f, a.data, a.ld, packed, 0.0f, want.data(), kN, kernels, epi);
      for (const auto& range : {std::pair<int64_t, int64_t>{0, 250}, {250, 750}, {750, 1000}}) {
        std::vector<float> slice(static_cast<size_t>(M * (range.second - range.first)));
        for (int64_t m = 0; m < M; ++m) {
          std::copy(a.data + m * a.ld + range.first, a.data + m * a.ld + range.second,
                    slice.data() + m * (range.second - range.first));
        }
        GemmF32Avx2Packed(M, 1.0f, slice.data(), range.second - range.first, packed, 0.0f, got.data(), kN, kernels, epi,
                          range.first, range.second);
      }
      EXPECT_EQ(0, std::memcmp(want.data(), got.data(), want.size() * sizeof(float)))
          << "M=" << M << " " << Name(kernels);
    }
  }
}

TEST(GemmF32Avx2, ThreadCountDoesNotChangeBits) {
  PTQ_REQUIRE_AVX2();
  std::mt19937 rng(11);
  const Matrix a(256, 384, 0, rng, 0.0f), b(384, 200, 0, rng, 0.0f);
  const int saved = omp_get_max_threads();
  for (F32Kernels kernels : RunnableKernels()) {
    std::vector<float> one(256 * 200), many(256 * 200);
    omp_set_num_threads(1);
    GemmF32Avx2(false, false, 256, 200, 384, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, one.data(), 200, kernels);
    omp_set_num_threads(3);  // more threads than cores is fine, and splits the tiles differently
    GemmF32Avx2(false, false, 256, 200, 384, 1.0f, a.data, a.ld, b.data, b.ld, 0.0f, many.data(), 200, kernels);
    omp_set_num_threads(saved);
    EXPECT_EQ(0, std::memcmp(one.data(), many.data(), one.size() * sizeof(float))) << Name(kernels);
  }
}

TEST(CpuFeatures, OverrideParsing) {
  const CpuFeatures all{true, true, true, true};
  bool known = false;
  const CpuFeatures baseline = ApplyCpuOverride(all, "baseline", &known);
  EXPECT_TRUE(known);
  EXPECT_FALSE(baseline.avx2_fma || baseline.avx512f || baseline.avx512_vnni || baseline.avx_vnni);
  for (const char* keep : {static_cast<const char*>(nullptr), "", "native"}) {
    const CpuFeatures f = ApplyCpuOverride(all, keep, &known);
    EXPECT_TRUE(known);
    EXPECT_TRUE(f.avx2_fma && f.avx512f && f.avx512_vnni && f.avx_vnni);
  }
  const CpuFeatures avx2 = ApplyCpuOverride(all, "avx2", &known);
  EXPECT_TRUE(known);
  EXPECT_TRUE(avx2.avx2_fma);
  EXPECT_FALSE(avx2.avx512f || avx2.avx512_vnni || avx2.avx_vnni);
  EXPECT_FALSE(ApplyCpuOverride(CpuFeatures{}, "avx2", &known).avx2_fma) << "never more than the CPU has";
  const CpuFeatures typo = ApplyCpuOverride(all, "basline", &known);
  EXPECT_FALSE(known);
  EXPECT_TRUE(typo.avx2_fma);
}

TEST(CpuFeatures, BaselineEnvironmentDisablesEverything) {
  const char* old = std::getenv(kCpuEnvVar);
  const std::string saved = old ? old : "";
  setenv(kCpuEnvVar, "baseline", 1);
  const CpuFeatures f = DetectCpuFeatures();
  if (old) {
    setenv(kCpuEnvVar, saved.c_str(), 1);
  } else {
    unsetenv(kCpuEnvVar);
  }
  EXPECT_FALSE(f.avx2_fma || f.avx512f || f.avx512_vnni || f.avx_vnni);
}

}  // namespace
}  // namespace ptq
