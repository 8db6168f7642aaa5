// SiluF32Avx2 and SiluF32Avx512 give the bits of the scalar x * VecSigmoid(x) on every float of a sweep (both ends
// of VecExp's range, where 2^n is a denormal, zeros, infinities), at every length around their steps, and in place.
#include "runtime/kernels/vector/silu_f32.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/cpu_features.h"
#include "runtime/kernels/vector/vector_math.h"

namespace ptq {
namespace {

uint32_t Bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

using SiluLoop = void (*)(const float*, float*, int64_t);

void ExpectTheBitsOfTheScalarCode(SiluLoop silu) {
  std::vector<float> x;
  for (float v = -120.0f; v <= 120.0f; v += 0.0137f) x.push_back(v);  // past both clamps of VecExp
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, 1e-40f, -1e-40f, std::numeric_limits<float>::min(),
                  std::numeric_limits<float>::max(), -std::numeric_limits<float>::max(), 88.72f, -103.9f}) {
    x.push_back(v);
  }
  for (float v = 87.0f; v <= 104.0f; v += 0.001f) x.push_back(v);  // e^-x a denormal, or below: 2^n split in two
  std::mt19937 rng(41);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 20000; ++i) {  // random bit patterns: every exponent
    const uint32_t u = any(rng);
    float f;
    std::memcpy(&f, &u, 4);
    if (!std::isnan(f)) x.push_back(f);
  }
  std::vector<float> y(x.size());
  silu(x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t i = 0; i < x.size(); ++i) {
    ASSERT_EQ(Bits(y[i]), Bits(x[i] * VecSigmoid(x[i]))) << "x = " << x[i];
  }
  // Every length from 0 to 70 (steps of 32, of 16 or 8, and the rest), in place.
  for (int64_t n = 0; n <= 70; ++n) {
    std::vector<float> v(x.begin() + 1000, x.begin() + 1000 + n);
    silu(v.data(), v.data(), n);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(Bits(v[i]), Bits(y[1000 + i])) << n << " " << i;
  }
  // NaN stays NaN.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> n8(8, nan), out(8);
  silu(n8.data(), out.data(), 8);
  for (float f : out) EXPECT_TRUE(std::isnan(f));
}

TEST(ElementwiseVectorMathSilu, Avx2LoopHasTheBitsOfTheScalarCode) {
  if (!GetCpuFeatures().avx2_fma) GTEST_SKIP() << "the CPU lacks AVX2/FMA (or PTQ_CPU=baseline)";
  ExpectTheBitsOfTheScalarCode(SiluF32Avx2);
}

TEST(ElementwiseVectorMathSilu, Avx512LoopHasTheBitsOfTheScalarCode) {
  if (!GetCpuFeatures().avx512f) GTEST_SKIP() << "the CPU lacks AVX-512F (or PTQ_CPU says so)";
  ExpectTheBitsOfTheScalarCode(SiluF32Avx512);
}

}  // namespace
}  // namespace ptq
