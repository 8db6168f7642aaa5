// Histogram: the canonical power-of-two grid, the two-pass Add, exact merge, mean and std from the bins.
#include "calibrate/histogram.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "calibrate/bin_index.h"
#include "runtime/cpu_features.h"
#include "runtime/error.h"

namespace ptq {
namespace {

// floor(j / 2^s) for s >= 0 (>> of a negative int64 is arithmetic in every compiler ptq supports).
int64_t ShiftFloor(int64_t j, int s) { return s >= 63 ? (j < 0 ? -1 : 0) : j >> s; }

// GCC/Clang vector extension: 4 float lanes (SSE2, NEON), for the min/max scan.
typedef float Float4 __attribute__((vector_size(16)));
typedef int32_t Int4 __attribute__((vector_size(16)));

struct Scan {
  float min, max;    // over the non-NaN values (+-Inf included)
  bool all_finite;
  uint64_t zeros;    // values equal to +-0
};

#if defined(__x86_64__)
// ScanValues below with 8-lane AVX2 vectors, for the first `*done` values (a multiple of 16); the
// caller finishes the rest. Same result: min, max and the zero count do not depend on the order, and
// `poison` is NaN iff some value is not finite in any order.
__attribute__((target("avx2"))) Scan ScanValuesAvx2(const float* v, size_t n, size_t* done) {
  const __m256 inf = _mm256_set1_ps(std::numeric_limits<float>::infinity());
  const __m256 zero = _mm256_setzero_ps();
  __m256 mn0 = inf, mn1 = inf, mx0 = _mm256_sub_ps(zero, inf), mx1 = mx0, p0 = zero, p1 = zero;
  __m256i z0 = _mm256_setzero_si256(), z1 = z0;
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    const __m256 a = _mm256_loadu_ps(v + i);
    const __m256 b = _mm256_loadu_ps(v + i + 8);
    mn0 = _mm256_min_ps(a, mn0);  // keeps the second operand when a is NaN
    mn1 = _mm256_min_ps(b, mn1);
    mx0 = _mm256_max_ps(a, mx0);
    mx1 = _mm256_max_ps(b, mx1);
    p0 = _mm256_add_ps(p0, _mm256_mul_ps(a, zero));
    p1 = _mm256_add_ps(p1, _mm256_mul_ps(b, zero));
    z0 = _mm256_sub_epi32(z0, _mm256_castps_si256(_mm256_cmp_ps(a, zero, _CMP_EQ_OQ)));
    z1 = _mm256_sub_epi32(z1, _mm256_castps_si256(_mm256_cmp_ps(b, zero, _CMP_EQ_OQ)));
  }
  alignas(32) float lmn[8], lmx[8], lp[8];
  alignas(32) uint32_t lz[8];
  _mm256_store_ps(lmn, _mm256_min_ps(mn0, mn1));
  _mm256_store_ps(lmx, _mm256_max_ps(mx0, mx1));
  _mm256_store_ps(lp, _mm256_add_ps(p0, p1));
  _mm256_store_si256(reinterpret_cast<__m256i*>(lz), _mm256_add_epi32(z0, z1));
  Scan s{lmn[0], lmx[0], true, 0};
  float poison = 0.0f;
  for (int l = 0; l < 8; ++l) {
    s.min = std::min(s.min, lmn[l]);
    s.max = std::max(s.max, lmx[l]);
    poison += lp[l];
    s.zeros += lz[l];  // each lane counts at most n / 8 < 2^32 zeros (n <= 2^32: see Add)
  }
  s.all_finite = poison == poison;
  *done = i;
  return s;
}
#endif

// Pass 1, vectorised: NaN compares false so it never becomes min or max, and x * 0 is NaN exactly
// when x is NaN or +-Inf, so the sum `poison` of x * 0 is NaN iff some value is not finite.
// Each int32 lane counts at most n / 8 zeros: exact for the calls of at most 2^32 values that Add makes.
// Uses ScanValuesAvx2 when the CPU has AVX2 (GetCpuFeatures).
// The scan's scalar part over v[i, n): min, max, zeros, and the NaN-poisoned sum of x * 0.
void ScanTail(const float* v, size_t i, size_t n, Scan* s, float* poison) {
  for (; i < n; ++i) {
    s->min = v[i] < s->min ? v[i] : s->min;
    s->max = v[i] > s->max ? v[i] : s->max;
    *poison += v[i] * 0.0f;
    s->zeros += v[i] == 0.0f;
  }
}

Scan ScanValues(const float* v, size_t n) {
#if defined(__x86_64__)
  if (GetCpuFeatures().avx2_fma && n >= 16) {
    size_t i = 0;
    Scan s = ScanValuesAvx2(v, n, &i);
    float poison = s.all_finite ? 0.0f : std::numeric_limits<float>::quiet_NaN();
    ScanTail(v, i, n, &s, &poison);
    s.all_finite = poison == poison;
    return s;
  }
#endif
  const float inf = std::numeric_limits<float>::infinity();
  Float4 mn0 = {inf, inf, inf, inf}, mn1 = mn0, mx0 = -mn0, mx1 = -mn0, p0 = {0, 0, 0, 0}, p1 = p0;
  Int4 z0 = {0, 0, 0, 0}, z1 = z0;  // a == 0 is -1 in a true lane
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Float4 a, b;
    std::memcpy(&a, v + i, sizeof a);
    std::memcpy(&b, v + i + 4, sizeof b);
    mn0 = a < mn0 ? a : mn0;
    mn1 = b < mn1 ? b : mn1;
    mx0 = a > mx0 ? a : mx0;
    mx1 = b > mx1 ? b : mx1;
    p0 += a * 0.0f;
    p1 += b * 0.0f;
    z0 += a == 0.0f;
    z1 += b == 0.0f;
  }
  Scan s{inf, -inf, true, 0};
  float poison = 0.0f;
  for (int l = 0; l < 4; ++l) {
    s.min = std::min({s.min, mn0[l], mn1[l]});
    s.max = std::max({s.max, mx0[l], mx1[l]});
    poison += p0[l] + p1[l];
    s.zeros += static_cast<uint64_t>(-static_cast<int64_t>(z0[l]) - z1[l]);
  }
  ScanTail(v, i, n, &s, &poison);
  s.all_finite = poison == poison;
  return s;
}


}  // namespace

Histogram::Histogram(int num_bins) {
  if (num_bins < 2) ThrowUsageError("histogram needs at least 2 bins, got ", num_bins);
  bins_.assign(static_cast<size_t>(num_bins), 0);
}

int Histogram::CanonicalExponent(float mn, float mx, int at_least, int num_bins) {
  const float maxabs = std::max(std::fabs(mn), std::fabs(mx));
  int e = std::max(at_least, kMinExponent);
  if (maxabs > 0) e = std::max(e, std::ilogb(maxabs) - 39);
  while (FloorScaled(mx, e) - FloorScaled(mn, e) > num_bins - 1) ++e;
  return e;
}

double Histogram::bin_width() const { return std::ldexp(1.0, exponent_); }

double Histogram::lower(int i) const { return std::ldexp(static_cast<double>(first_bin_ + i), exponent_); }

// Grows the grid to cover [new_min, new_max] (finite): e and first_bin become canonical for the
// union, and bin j at the old width moves to bin j >> (e' - e) at the new width.
void Histogram::Widen(float new_min, float new_max) {
  const float mn = std::min(min_, new_min);
  const float mx = std::max(max_, new_max);
  const int e = CanonicalExponent(mn, mx, count_ ? exponent_ : kMinExponent, num_bins());
  const int64_t first = FloorScaled(mn, e);
  min_ = mn;
  max_ = mx;
  if (count_ == 0) {
    exponent_ = e;
    first_bin_ = first;
    return;
  }
  if (e == exponent_ && first == first_bin_) return;
  std::vector<uint64_t> moved(bins_.size(), 0);
  const int shift = e - exponent_;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] == 0) continue;
    moved[static_cast<size_t>(ShiftFloor(first_bin_ + static_cast<int64_t>(k), shift) - first)] += bins_[k];
  }
  bins_.swap(moved);
  exponent_ = e;
  first_bin_ = first;
}

// The calling thread's block counters: *copies copies (*stride apart) of num_bins + 4 32-bit counters
// (the 4 spare counters past the bins take zeros, non-finite values and, in CountBins, values outside
// the grid; they are never read). The
// counters of the bins are zero between calls: Flush (or AddInGrid's take-back) clears what a call
// added; the spare ones are cleared when the layout (num_bins) changes, as they become bins.
// Two copies, taken in turn by consecutive values, let runs of values in one bin (ReLU, softmax and
// GELU outputs have many) increment without always waiting on the previous store; one copy for grids
// too large to keep two in cache. Up to the default 2048 bins the counters are a static thread-local
// array rather than a heap block (a long-lived block amid the session's buffers changed where those
// landed and cost page faults: 15% of a CNN calibration).
uint32_t* Histogram::Counters(size_t* stride, size_t* copies) const {
  constexpr size_t kSmall = 2 * (kDefaultBins + 4);
  alignas(64) thread_local uint32_t small[kSmall] = {};
  thread_local std::vector<uint32_t> large;
  thread_local size_t layout = 0;  // the stride the counters are laid out for; 0: none yet
  *stride = bins_.size() + 4;
  *copies = bins_.size() <= 16384 ? 2 : 1;
  const size_t size = *stride * *copies;
  uint32_t* c = size <= kSmall ? small : nullptr;
  if (!c) {
    if (large.size() < size) large.resize(size);
    c = large.data();
  }
  if (layout != *stride) {
    std::fill(small, small + kSmall, 0u);
    std::fill(large.begin(), large.end(), 0u);
    layout = *stride;
  }
  return c;
}

namespace {

constexpr size_t kBlock = 1024;  // values counted at a time (AddInGrid checks each block's range)

}  // namespace

// Adds bins [lo, hi] of every copy of the block counters to the bins and clears them; the other bins'
// counters are zero (the values counted since the last flush lie in [lo, hi]).
void Histogram::Flush(uint32_t* c, size_t stride, size_t copies, size_t lo, size_t hi) {
  if (copies == 2) {
    uint32_t* c1 = c + stride;
    for (size_t k = lo; k <= hi; ++k) bins_[k] += static_cast<uint64_t>(c[k]) + c1[k];
    std::fill(c1 + lo, c1 + hi + 1, 0u);
  } else {
    for (size_t k = lo; k <= hi; ++k) bins_[k] += c[k];
  }
  std::fill(c + lo, c + hi + 1, 0u);
}

// The bins of the finite values mn <= mx on the current grid (both inside it).
std::pair<size_t, size_t> Histogram::BinRange(float mn, float mx) const {
  return {static_cast<size_t>(FloorScaled(mn, exponent_) - first_bin_),
          static_cast<size_t>(FloorScaled(mx, exponent_) - first_bin_)};
}

bool Histogram::FloatGrid() const {
  return first_bin_ > -(int64_t{1} << 22) && first_bin_ + num_bins() < (int64_t{1} << 22);
}

// Pass 2 over values whose finite ones (min mn, max mx) are inside the grid: every value is counted
// into 32-bit block counters (zeros and non-finite values go to four spare counters), added to the bins
// at the end. Zeros are added to their bin from the scan's count. Grids within 2^22 bins of 0 count in
// float (CountBins, vectorised, exact there); others take the exact double path (FloorScaled).
template <bool kCheck>
void Histogram::AddFinite(const float* values, size_t n, uint64_t zeros, float mn, float mx) {
  const int nb = num_bins();
  size_t stride, copies;
  uint32_t* c = Counters(&stride, &copies);
  const bool float_path = FloatGrid();
  const float scale = float_path ? std::ldexp(1.0f, -exponent_) : 0.0f;
  const auto range = BinRange(mn, mx);
  size_t since_flush = 0;
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t len = std::min(kBlock, n - start);
    const float* v = values + start;
    if (float_path) {
      CountBins(v, len, scale, static_cast<int32_t>(first_bin_), nb, c, stride, copies);
    } else {
      for (size_t i = 0; i < len; ++i) {
        const bool skip = v[i] == 0.0f || (kCheck && !std::isfinite(v[i]));
        const size_t j = skip ? static_cast<size_t>(nb) + (i & 3) : static_cast<size_t>(FloorScaled(v[i], exponent_) - first_bin_);
        ++c[(copies == 2 && (i & 1) ? stride : 0) + j];
      }
    }
    since_flush += len;
    if (since_flush >= (size_t{1} << 31)) {  // 32-bit counters stay exact
      Flush(c, stride, copies, range.first, range.second);
      since_flush = 0;
    }
  }
  Flush(c, stride, copies, range.first, range.second);
  if (zeros > 0) bins_[static_cast<size_t>(-first_bin_)] += zeros;
}

// The one-pass path for the common case of a call whose values are all finite and inside
// [min(), max()]: then the grid does not change (Widen would keep e and first_bin), so the values can be
// counted while scanning (CountBins), block by block, each block's range checked after it is counted
// (CountBins never writes outside the counters, whatever the values). Returns false, having taken back
// what it counted (every counter of the bins cleared), at the first block with a value outside
// [min(), max()] or NaN; Add then takes the two-pass path. REQUIRES: count_ > 0, FloatGrid(), n <= 2^31.
bool Histogram::AddInGrid(const float* values, size_t n) {
  const int nb = num_bins();
  size_t stride, copies;
  uint32_t* c = Counters(&stride, &copies);
  const float scale = std::ldexp(1.0f, -exponent_);
  const float inf = std::numeric_limits<float>::infinity();
  float mn = inf, mx = -inf;
  uint64_t zeros = 0;
  for (size_t start = 0; start < n; start += kBlock) {
    const size_t len = std::min(kBlock, n - start);
    const IndexedRange r = CountBins(values + start, len, scale, static_cast<int32_t>(first_bin_), nb, c, stride, copies);
    if (r.has_nan || r.min < min_ || r.max > max_) {
      for (size_t k = 0; k < copies; ++k) std::fill(c + k * stride, c + k * stride + static_cast<size_t>(nb), 0u);
      return false;
    }
    mn = std::min(mn, r.min);
    mx = std::max(mx, r.max);
    zeros += r.zeros;
  }
  const auto range = BinRange(mn, mx);
  Flush(c, stride, copies, range.first, range.second);
  if (zeros > 0) bins_[static_cast<size_t>(-first_bin_)] += zeros;
  count_ += n;
  zero_count_ += zeros;
  return true;
}

void Histogram::Add(const float* values, size_t n) {
  constexpr size_t kMaxCall = size_t{1} << 32;  // keeps ScanValues' int32 lane counters exact
  if (n > kMaxCall) {
    for (size_t i = 0; i < n; i += kMaxCall) Add(values + i, std::min(kMaxCall, n - i));
    return;
  }
  if (n == 0) return;
  if (count_ > 0 && n <= (size_t{1} << 31) && FloatGrid() && AddInGrid(values, n)) return;
  const Scan scan = ScanValues(values, n);
  float mn = scan.min, mx = scan.max;
  uint64_t bad = 0;
  if (!scan.all_finite) {  // rare: count NaN/Inf and redo min/max over the finite values
    mn = std::numeric_limits<float>::infinity();
    mx = -mn;
    for (size_t i = 0; i < n; ++i) {
      const float x = values[i];
      if (std::isnan(x)) {
        ++nan_count_;
        ++bad;
      } else if (std::isinf(x)) {
        ++(x > 0 ? pos_inf_count_ : neg_inf_count_);
        ++bad;
      } else {
        mn = std::min(mn, x);
        mx = std::max(mx, x);
      }
    }
  }
  if (bad == n) return;
  mn += 0.0f;  // turns -0 into +0, so min/max do not depend on order
  mx += 0.0f;
  Widen(mn, mx);
  if (bad) {
    AddFinite<true>(values, n, scan.zeros, mn, mx);
  } else {
    AddFinite<false>(values, n, scan.zeros, mn, mx);
  }
  count_ += n - bad;
  zero_count_ += scan.zeros;
}

void Histogram::Merge(const Histogram& other) {
  if (other.num_bins() != num_bins()) {
    ThrowInputError("cannot merge histograms of ", num_bins(), " and ", other.num_bins(), " bins");
  }
  nan_count_ += other.nan_count_;
  pos_inf_count_ += other.pos_inf_count_;
  neg_inf_count_ += other.neg_inf_count_;
  if (other.count_ == 0) return;
  Widen(other.min_, other.max_);
  const int shift = exponent_ - other.exponent_;  // >= 0: the exponent is monotone in the data
  for (size_t k = 0; k < other.bins_.size(); ++k) {
    if (other.bins_[k] == 0) continue;
    const int64_t j = ShiftFloor(other.first_bin_ + static_cast<int64_t>(k), shift);
    bins_[static_cast<size_t>(j - first_bin_)] += other.bins_[k];
  }
  count_ += other.count_;
  zero_count_ += other.zero_count_;
}

// mean = sum over bins of count * center / count, clamped to [min, max] (exact for a constant).
double Histogram::mean() const {
  if (count_ == 0) return 0.0;
  if (min_ == max_) return min_;
  double s = 0;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] != 0) s += static_cast<double>(bins_[k]) * (lower(static_cast<int>(k)) + 0.5 * bin_width());
  }
  return std::min<double>(max_, std::max<double>(min_, s / static_cast<double>(count_)));
}

// std = sqrt(sum over bins of count * (center - mean)^2 / count).
double Histogram::stddev() const {
  if (count_ == 0 || min_ == max_) return 0.0;
  const double m = mean();
  double s = 0;
  for (size_t k = 0; k < bins_.size(); ++k) {
    if (bins_[k] == 0) continue;
    const double d = lower(static_cast<int>(k)) + 0.5 * bin_width() - m;
    s += static_cast<double>(bins_[k]) * d * d;
  }
  return std::sqrt(s / static_cast<double>(count_));
}

bool Histogram::operator==(const Histogram& o) const {
  if (bins_ != o.bins_ || count_ != o.count_ || zero_count_ != o.zero_count_ || nan_count_ != o.nan_count_ ||
      pos_inf_count_ != o.pos_inf_count_ || neg_inf_count_ != o.neg_inf_count_) {
    return false;
  }
  if (count_ == 0) return true;
  return exponent_ == o.exponent_ && first_bin_ == o.first_bin_ && min_ == o.min_ && max_ == o.max_;
}

}  // namespace ptq
