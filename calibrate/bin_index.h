// Vectorised bin indices for Histogram::Add: j = floor(x * 2^-e) - first_bin per value, in float.
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

// For i < n: idx[i] = floor(v[i] * scale) - first, where scale = 2^-e. Zeros, and (when
// `check_finite`) NaN and +-Inf, get skip_base + (i & 3) instead: spare counters, taken in turn so
// that runs of them do not wait on each other.
// Exact when scale * v[i] is a normal float or underflows (then the bin is 0 for x > 0 and -1 for
// x < 0) and |floor(v[i] * scale)| < 2^22: the caller checks the grid (first_bin) for the latter.
// Uses AVX2 when the CPU has it (GetCpuFeatures), else SSE2, else a scalar loop; all give the same
// result.
void FloatBinIndices(const float* v, size_t n, float scale, int32_t first, int32_t skip_base, bool check_finite,
                     int32_t* idx);

// What FloatBinIndicesAndRange saw besides the indices.
struct IndexedRange {
  float min, max;    // over the non-NaN values (+-Inf included); +inf and -inf when n == 0
  bool has_nan;
  uint32_t zeros;    // values equal to +-0
};

// One pass doing the indices of FloatBinIndices (zeros to skip_base + (i & 3)) and the min/max/NaN/zero
// scan of the same values, for Histogram::Add's one-pass path (values already inside the grid). The
// indices are meaningful only when the values turn out to be inside the grid (no NaN, min and max
// within it, which the caller checks before using them); those of NaN and +-Inf are unspecified.
// REQUIRES: n < 2^31. `allow_avx2` = false forces the SSE2 path (for tests: the result is the same).
IndexedRange FloatBinIndicesAndRange(const float* v, size_t n, float scale, int32_t first, int32_t skip_base,
                                     int32_t* idx, bool allow_avx2 = true);

}  // namespace ptq
