// Bin counting for Histogram::Add: j = floor(x * 2^-e) - first_bin per value, computed in float and counted.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

namespace ptq {

// floor(x * 2^-e) for finite x, the exact bin formula: a power-of-two scaling in double is exact, and
// |result| < 2^41 whenever e >= ilogb(|x|) - 39.
inline int64_t FloorScaled(float x, int e) {
  const double y = std::ldexp(static_cast<double>(x), -e);
  return static_cast<int64_t>(std::floor(y));
}

// What CountBins saw besides the bins.
struct IndexedRange {
  float min, max;    // over the non-NaN values (+-Inf included); +inf and -inf when n == 0
  bool has_nan;
  uint32_t zeros;    // values equal to +-0
};

// The instruction set CountBins uses: kBest picks AVX-512, else AVX2, else SSE2 (x86-64), else scalar,
// as the CPU offers (GetCpuFeatures); the others force one (for tests; one the CPU lacks falls back to
// the next one down).
enum class BinIsa { kBest, kAvx512, kAvx2, kSse2, kScalar };

// One pass over v[0, n): for the value v[k], counter copy k % copies (copies 1 or 2; copy r starts at
// c + r * stride, stride >= nb + 4) gets ++c[j], where
//   j = floor(v[k] * scale) - first   when v[k] is finite, nonzero and j is in [0, nb),
//   j = nb + (k & 3) or another of the 4 spare counters c[nb .. nb + 3]   otherwise
// (zeros, NaN, +-Inf and values outside the grid: never a bin, never outside the counters).
// Also returns min, max, NaN and zeros of the values. scale = 2^-e. j is exact when v[k] * scale is a
// normal float or underflows (then the bin is 0 for x > 0 and -1 for x < 0) and |j + first| < 2^22:
// the caller checks the grid. Every isa gives the same counters and result. REQUIRES: n < 2^31.
IndexedRange CountBins(const float* v, size_t n, float scale, int32_t first, int32_t nb, uint32_t* c, size_t stride,
                       size_t copies, BinIsa isa = BinIsa::kBest);

}  // namespace ptq
