// Int8Gemm on every instruction set this CPU runs, bit for bit against IntGemmReference + RequantizeValue (or
// the float output's multiply and add):
// random shapes (M = 1, K not a multiple of 4, N not a multiple of 16), all uint8/int8 combinations,
// zero points per row/column, bias, per-column multipliers, transposed packing, strides, threads.
#include "runtime/kernels/int8_gemm/int8_gemm.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "runtime/kernels/int8_gemm/int_matmul_reference.h"
#include "runtime/quant_math.h"

namespace ptq {
namespace {

std::vector<Int8Isa> RunnableIsas() {
  std::vector<Int8Isa> out;
  for (Int8Isa isa : {Int8Isa::kScalar, Int8Isa::kAvx2, Int8Isa::kAvxVnni, Int8Isa::kAvx512Vnni}) {
    if (Int8IsaAvailable(isa)) out.push_back(isa);
  }
  return out;
}

struct Case {
  int64_t M, K, N;
  bool a_signed, b_signed;
  bool a_zp_per_row;
  bool with_bias;
  Int8Output out;
  bool b_transposed;
  int64_t lda_pad, ldc_pad;
  bool symmetric_b = false;  // B's zero point 0 (int8) or 128 (uint8) in every column: the kernels' epilogue
                             // without B zero-point terms
};

std::string Describe(const Case& c, Int8Isa isa) {
  return std::string(Int8IsaName(isa)) + " M=" + std::to_string(c.M) + " K=" + std::to_string(c.K) +
         " N=" + std::to_string(c.N) + (c.a_signed ? " a:s8" : " a:u8") + (c.b_signed ? " b:s8" : " b:u8") +
         (c.a_zp_per_row ? " a_zp/row" : "") + (c.with_bias ? " bias" : "") + (c.b_transposed ? " bT" : "") +
         (c.symmetric_b ? " symmetric b" : "") +
         " out=" + std::to_string(static_cast<int>(c.out));
}

// Random bytes covering the whole type range, with runs of the extremes (the worst case for pair sums).
std::vector<uint8_t> RandomBytes(std::mt19937& rng, size_t n) {
  std::vector<uint8_t> v(n);
  std::uniform_int_distribution<int> byte(0, 255), pick(0, 9);
  for (auto& x : v) {
    const int p = pick(rng);
    x = static_cast<uint8_t>(p == 0 ? 0 : p == 1 ? 255 : p == 2 ? 127 : p == 3 ? 128 : byte(rng));
  }
  return v;
}

template <class TA, class TB>
std::vector<int32_t> Reference(const Case& c, const std::vector<uint8_t>& a, const std::vector<int32_t>& a_zp,
                               const std::vector<uint8_t>& b_rowmajor, const std::vector<int32_t>& b_zp) {
  std::vector<TA> a_dense(static_cast<size_t>(c.M * c.K));
  for (int64_t m = 0; m < c.M && c.K > 0; ++m) {
    std::memcpy(a_dense.data() + m * c.K, a.data() + m * (c.K + c.lda_pad), static_cast<size_t>(c.K));
  }
  std::vector<int32_t> out(static_cast<size_t>(c.M * c.N));
  IntGemmReference<TA, TB>(c.M, c.N, c.K, a_dense.data(), a_zp.data(), reinterpret_cast<const TB*>(b_rowmajor.data()),
                           b_zp.data(), out.data());
  return out;
}

void RunCase(const Case& c, Int8Isa isa, std::mt19937& rng) {
  SCOPED_TRACE(Describe(c, isa));
  const int64_t lda = c.K + c.lda_pad;
  const int64_t ldc = c.N + c.ldc_pad;
  const std::vector<uint8_t> a = RandomBytes(rng, static_cast<size_t>(std::max<int64_t>(c.M * lda, 1)));
  const std::vector<uint8_t> b = RandomBytes(rng, static_cast<size_t>(std::max<int64_t>(c.K * c.N, 1)));
  std::vector<uint8_t> b_t(b.size());
  for (int64_t k = 0; k < c.K; ++k) {
    for (int64_t n = 0; n < c.N; ++n) b_t[static_cast<size_t>(n * c.K + k)] = b[static_cast<size_t>(k * c.N + n)];
  }
  std::uniform_int_distribution<int> zp_u8(0, 255), zp_s8(-128, 127), bias_dist(-100000, 100000);
  auto zp = [&](bool is_signed) { return is_signed ? zp_s8(rng) : zp_u8(rng); };
  std::vector<int32_t> a_zp(static_cast<size_t>(c.M));
  for (auto& z : a_zp) z = c.a_zp_per_row || &z == &a_zp[0] ? zp(c.a_signed) : a_zp[0];
  std::vector<int32_t> b_zp(static_cast<size_t>(c.N));
  for (auto& z : b_zp) z = c.symmetric_b ? (c.b_signed ? 0 : 128) : zp(c.b_signed);
  std::vector<int32_t> bias(static_cast<size_t>(c.N));
  for (auto& v : bias) v = bias_dist(rng);
  std::vector<float> multiplier(static_cast<size_t>(c.N));
  std::uniform_real_distribution<float> mult_dist(1e-6f, 2e-3f);
  for (auto& v : multiplier) v = mult_dist(rng);
  const int32_t y_zp = c.out == Int8Output::kUint8 ? zp_u8(rng) : zp_s8(rng);

  std::vector<int32_t> expected;
  if (c.a_signed && c.b_signed) expected = Reference<int8_t, int8_t>(c, a, a_zp, b, b_zp);
  if (c.a_signed && !c.b_signed) expected = Reference<int8_t, uint8_t>(c, a, a_zp, b, b_zp);
  if (!c.a_signed && c.b_signed) expected = Reference<uint8_t, int8_t>(c, a, a_zp, b, b_zp);
  if (!c.a_signed && !c.b_signed) expected = Reference<uint8_t, uint8_t>(c, a, a_zp, b, b_zp);

  PackedInt8B packed;
  if (c.b_transposed) {
    packed.Pack(b_t.data(), c.b_signed, c.K, c.N, c.K, true, b_zp.data(), isa);
  } else {
    packed.Pack(b.data(), c.b_signed, c.K, c.N, c.N, false, b_zp.data(), isa);
  }
  Int8GemmA in;
  in.M = c.M;
  in.data = a.data();
  in.is_signed = c.a_signed;
  in.lda = lda;
  in.zero_point = a_zp.data();
  in.zero_point_per_row = c.a_zp_per_row;
  Int8GemmOut out;
  out.type = c.out;
  out.ldc = ldc;
  out.bias = c.with_bias ? bias.data() : nullptr;
  out.multiplier = multiplier.data();
  out.y_zero_point = y_zp;
  std::vector<float> float_bias(static_cast<size_t>(c.N));
  std::uniform_real_distribution<float> float_bias_dist(-3.0f, 3.0f);
  for (auto& v : float_bias) v = float_bias_dist(rng);
  if (c.out == Int8Output::kFloat && c.with_bias) out.float_bias = float_bias.data();
  const size_t elem = c.out == Int8Output::kInt32 || c.out == Int8Output::kFloat ? 4 : 1;
  const uint8_t kCanary = 0xA5;
  std::vector<uint8_t> c_buf(static_cast<size_t>(std::max<int64_t>(c.M * ldc, 1)) * elem, kCanary);
  out.data = c_buf.data();
  Int8Gemm(in, packed, out);

  const int32_t qmin = c.out == Int8Output::kUint8 ? 0 : -128;
  const int32_t qmax = c.out == Int8Output::kUint8 ? 255 : 127;
  int mismatches = 0;
  for (int64_t m = 0; m < c.M && mismatches < 5; ++m) {
    for (int64_t n = 0; n < ldc; ++n) {
      const size_t at = static_cast<size_t>(m * ldc + n);
      if (n >= c.N) {  // padding between rows is never written
        for (size_t e = 0; e < elem; ++e) ASSERT_EQ(c_buf[at * elem + e], kCanary) << "m=" << m << " n=" << n;
        continue;
      }
      uint32_t acc = static_cast<uint32_t>(expected[static_cast<size_t>(m * c.N + n)]);
      if (c.with_bias) acc += static_cast<uint32_t>(bias[static_cast<size_t>(n)]);
      int32_t want = static_cast<int32_t>(acc), got;
      if (c.out == Int8Output::kFloat) {  // float(acc) * multiplier + float_bias: two roundings
        const float fb = out.float_bias != nullptr ? float_bias[static_cast<size_t>(n)] : 0.0f;
        const volatile float product = static_cast<float>(want) * multiplier[static_cast<size_t>(n)];
        const float want_f = product + fb;
        float got_f;
        std::memcpy(&got_f, &c_buf[at * 4], 4);
        if (std::memcmp(&got_f, &want_f, 4) != 0 && ++mismatches <= 5) {
          ADD_FAILURE() << "m=" << m << " n=" << n << " got " << got_f << " want " << want_f;
        }
        continue;
      }
      if (c.out == Int8Output::kInt32) {
        std::memcpy(&got, &c_buf[at * 4], 4);
      } else {
        want = RequantizeValue(want, multiplier[static_cast<size_t>(n)], y_zp, qmin, qmax);
        got = c.out == Int8Output::kUint8 ? int32_t{c_buf[at]} : int32_t{static_cast<int8_t>(c_buf[at])};
      }
      if (got != want && ++mismatches <= 5) ADD_FAILURE() << "m=" << m << " n=" << n << " got " << got << " want " << want;
    }
  }
}

TEST(Int8GemmTest, EveryInstructionSetMatchesTheReferenceOverRandomShapesAndTypes) {
  std::mt19937 rng(7);
  const int64_t Ms[] = {1, 2, 5, 6, 7, 13, 49};
  const int64_t Ks[] = {0, 1, 3, 4, 5, 17, 64, 67};
  const int64_t Ns[] = {1, 7, 16, 17, 33, 64, 65, 130};
  const Int8Output outs[] = {Int8Output::kInt32, Int8Output::kUint8, Int8Output::kInt8, Int8Output::kFloat};
  for (Int8Isa isa : RunnableIsas()) {
    int i = 0;
    for (int64_t M : Ms) {
      for (int64_t K : Ks) {
        for (int64_t N : Ns) {
          ++i;
          Case c{M, K, N, (i & 1) != 0, (i & 2) != 0, (i % 5) == 0, (i % 3) != 0, outs[(i / 4) % 4], (i % 7) == 0,
                 i % 4 == 1 ? 3 : 0, i % 4 == 2 ? 5 : 0, (i / 3) % 2 == 0};
          RunCase(c, isa, rng);
          if (HasFailure()) return;
        }
      }
    }
  }
}

TEST(Int8GemmTest, AllTypeCombinationsAndOutputsOnOneOddShape) {
  std::mt19937 rng(11);
  for (Int8Isa isa : RunnableIsas()) {
    for (int combo = 0; combo < 4; ++combo) {
      for (Int8Output o : {Int8Output::kInt32, Int8Output::kUint8, Int8Output::kInt8, Int8Output::kFloat}) {
        for (bool per_row : {false, true}) {
          for (bool symmetric_b : {false, true}) {
            RunCase(Case{11, 75, 45, (combo & 1) != 0, (combo & 2) != 0, per_row, true, o, false, 0, 0, symmetric_b},
                    isa, rng);
          }
        }
      }
    }
  }
}

// Accumulators near the int32 limits wrap exactly as the reference's: K large, all products extreme.
TEST(Int8GemmTest, LongSumsOfExtremeValuesMatch) {
  std::mt19937 rng(3);
  for (Int8Isa isa : RunnableIsas()) {
    RunCase(Case{3, 4099, 19, false, true, false, true, Int8Output::kInt32, false, 0, 0}, isa, rng);
    RunCase(Case{2, 4099, 19, true, false, true, true, Int8Output::kInt8, false, 0, 0}, isa, rng);
  }
}

// Big enough to be split over threads (M * N * K >= 2^22), by panels or by rows; the result must not depend on it.
TEST(Int8GemmTest, ThreadedProductsMatch) {
  std::mt19937 rng(5);
  const int saved = omp_get_max_threads();
  omp_set_num_threads(3);
  for (Int8Isa isa : RunnableIsas()) {
    RunCase(Case{100, 200, 230, false, true, false, true, Int8Output::kUint8, false, 0, 0}, isa, rng);
    RunCase(Case{1, 1500, 3000, true, true, false, false, Int8Output::kInt32, true, 0, 0}, isa, rng);
    // More rows than columns: shared by rows (1003 is not a multiple of the 6-row tiles), A packed by all threads.
    RunCase(Case{1003, 70, 90, true, false, true, true, Int8Output::kInt32, false, 5, 3}, isa, rng);
    RunCase(Case{1003, 70, 90, false, true, false, true, Int8Output::kUint8, false, 0, 0}, isa, rng);
    RunCase(Case{1003, 70, 90, false, true, true, true, Int8Output::kInt8, false, 0, 7, true}, isa, rng);
    // Fewer rows than columns but 8 tiles of rows a thread and a small B: shared by rows, each thread packing the
    // rows it multiplies (RegNet's 14 x 14 x 320 layers).
    RunCase(Case{196, 320, 320, false, true, false, true, Int8Output::kUint8, false, 0, 0}, isa, rng);
    RunCase(Case{197, 96, 336, true, false, true, true, Int8Output::kInt32, false, 2, 0}, isa, rng);
  }
  omp_set_num_threads(saved);
}

// A finishing step (Int8GemmOut::finish) runs once on every float output, on one or more threads, by rows or by
// panels, each call on a block of at most 16 Ki outputs or one tile of rows (6): blocks still in cache. A thread's
// share finished whole (after all of it was stored) fails this. With a sink as well, every finished value reaches
// it once, with its place, and nothing is written at the output.
TEST(Int8GemmTest, FinishRunsOnceOnEveryOutputInCacheSizedBlocks) {
  std::mt19937 rng(13);
  const int saved = omp_get_max_threads();
  struct Shape3 {
    int64_t M, K, N;
  };
  // 3000 rows of 48 (shared by rows), 40 rows of 3000 (shared by panels).
  for (const Shape3 sh : {Shape3{3000, 40, 48}, Shape3{40, 64, 3000}}) {
    for (int threads : {1, 2, 3}) {
      for (Int8Isa isa : RunnableIsas()) {
        SCOPED_TRACE(std::string(Int8IsaName(isa)) + " M=" + std::to_string(sh.M) + " threads=" +
                     std::to_string(threads));
        omp_set_num_threads(threads);
        const std::vector<uint8_t> a = RandomBytes(rng, static_cast<size_t>(sh.M * sh.K));
        const std::vector<uint8_t> b = RandomBytes(rng, static_cast<size_t>(sh.K * sh.N));
        const std::vector<int32_t> b_zp(static_cast<size_t>(sh.N), 3);
        const int32_t a_zp = 7;
        PackedInt8B packed;
        packed.Pack(b.data(), false, sh.K, sh.N, sh.N, false, b_zp.data(), isa);
        const std::vector<float> multiplier(static_cast<size_t>(sh.N), 1.0f / 1024);
        const Int8GemmA in{sh.M, a.data(), false, sh.K, &a_zp, false};
        const size_t total = static_cast<size_t>(sh.M * sh.N);
        std::vector<float> plain(total), finished(total);
        Int8Gemm(in, packed, Int8GemmOut{Int8Output::kFloat, plain.data(), sh.N, nullptr, multiplier.data()});
        std::mutex mutex;
        std::vector<int> times(total, 0);
        int64_t largest = 0;
        const FloatRowFinish twice_plus_one = [&](float* row, int64_t n) {
          for (int64_t i = 0; i < n; ++i) row[i] = row[i] * 2.0f + 1.0f;
          std::lock_guard<std::mutex> lock(mutex);
          largest = std::max(largest, n);
          for (int64_t i = 0; i < n; ++i) ++times[static_cast<size_t>(row + i - finished.data())];
        };
        Int8GemmOut out{Int8Output::kFloat, finished.data(), sh.N, nullptr, multiplier.data()};
        out.finish = &twice_plus_one;
        Int8Gemm(in, packed, out);
        EXPECT_LE(largest, std::max<int64_t>(int64_t{16} << 10, 6 * sh.N));
        // With a sink: the finished values handed over with their places, nothing written at data.
        std::vector<float> untouched(total, -7.0f), sunk(total, -7.0f);
        std::vector<int> sunk_times(total, 0);
        const FloatRowSink keep = [&](const float* values, int64_t n, const float* at) {
          std::lock_guard<std::mutex> lock(mutex);
          largest = std::max(largest, n);
          const size_t first = static_cast<size_t>(at - untouched.data());
          for (int64_t i = 0; i < n; ++i) {
            sunk[first + static_cast<size_t>(i)] = values[i];
            ++sunk_times[first + static_cast<size_t>(i)];
          }
        };
        // The finish may no longer say where its values are (they are in the kernels' buffer).
        const FloatRowFinish in_place = [](float* row, int64_t n) {
          for (int64_t i = 0; i < n; ++i) row[i] = row[i] * 2.0f + 1.0f;
        };
        out.data = untouched.data();
        out.finish = &in_place;
        out.sink = &keep;
        largest = 0;
        Int8Gemm(in, packed, out);
        EXPECT_LE(largest, std::max<int64_t>(int64_t{16} << 10, 6 * sh.N));
        int bad = 0;
        for (size_t i = 0; i < total && bad < 5; ++i) {
          const float want = plain[i] * 2.0f + 1.0f;
          if (times[i] != 1 || std::memcmp(&finished[i], &want, 4) != 0 || sunk_times[i] != 1 ||
              std::memcmp(&sunk[i], &want, 4) != 0 || untouched[i] != -7.0f) {
            ++bad;
            ADD_FAILURE() << "output " << i << ": finished " << times[i] << " times, " << finished[i] << "; sunk "
                          << sunk_times[i] << " times, " << sunk[i] << "; at data " << untouched[i] << "; want "
                          << want;
          }
        }
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST(Int8GemmTest, RequantizationRoundsTiesToEvenSaturatesAndMapsNaNToQmin) {
  // acc = a * b with K = 1: a = 1, b = v; multiplier 0.5 makes ties; huge multipliers saturate.
  for (Int8Isa isa : RunnableIsas()) {
    SCOPED_TRACE(Int8IsaName(isa));
    const std::vector<int8_t> b = {1, 3, 5, -1, -3, -5, 127, -128, 0, 2, 7};
    const int64_t N = static_cast<int64_t>(b.size());
    const std::vector<int32_t> b_zp(b.size(), 0);
    PackedInt8B packed;
    packed.Pack(b.data(), true, 1, N, N, false, b_zp.data(), isa);
    const uint8_t a_value = 1;
    const int32_t a_zp = 0;
    Int8GemmA in{1, &a_value, false, 1, &a_zp, false};
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const std::vector<float> mult = {0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 1e9f, 1e9f, nan, -0.5f, 0.5f};
    for (Int8Output o : {Int8Output::kUint8, Int8Output::kInt8}) {
      const int32_t y_zp = o == Int8Output::kUint8 ? 10 : -3;
      std::vector<uint8_t> got(b.size());
      Int8GemmOut out{o, got.data(), N, nullptr, mult.data(), y_zp};
      Int8Gemm(in, packed, out);
      const int32_t qmin = o == Int8Output::kUint8 ? 0 : -128, qmax = o == Int8Output::kUint8 ? 255 : 127;
      for (int64_t n = 0; n < N; ++n) {
        const int32_t want = RequantizeValue(b[static_cast<size_t>(n)], mult[static_cast<size_t>(n)], y_zp, qmin, qmax);
        const int32_t g = o == Int8Output::kUint8 ? int32_t{got[static_cast<size_t>(n)]}
                                                  : int32_t{static_cast<int8_t>(got[static_cast<size_t>(n)])};
        EXPECT_EQ(g, want) << "n=" << n;
      }
    }
  }
}

}  // namespace
}  // namespace ptq
