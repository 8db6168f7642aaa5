// AddResidualRow: the residual's add and the clamp in one pass, AVX2 or plain.
#include "runtime/kernels/vector/residual_row.h"

#include "runtime/cpu_features.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace ptq {
namespace {

void AddPlain(float* y, const float* z, int64_t n, bool clamp, float lo, float hi) {
  for (int64_t i = 0; i < n; ++i) {
    float v = y[i] + z[i];
    if (clamp) {
      v = v < lo ? lo : v;
      v = hi < v ? hi : v;
    }
    y[i] = v;
  }
}

#if defined(__x86_64__)
// vmaxps(a, b) is a > b ? a : b and vminps(a, b) a < b ? a : b: max(lo, v) is v < lo ? lo : v (a NaN v stays),
// min(hi, v) is hi < v ? hi : v.
__attribute__((target("avx2"))) int64_t AddAvx2(float* y, const float* z, int64_t n, bool clamp, float lo, float hi) {
  const __m256 vlo = _mm256_set1_ps(lo), vhi = _mm256_set1_ps(hi);
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    __m256 v = _mm256_add_ps(_mm256_loadu_ps(y + i), _mm256_loadu_ps(z + i));
    if (clamp) v = _mm256_min_ps(vhi, _mm256_max_ps(vlo, v));
    _mm256_storeu_ps(y + i, v);
  }
  return i;
}
#endif

}  // namespace

void AddResidualRow(float* y, const float* z, int64_t n, bool clamp, float lo, float hi) {
  int64_t done = 0;
#if defined(__x86_64__)
  if (GetCpuFeatures().avx2_fma) done = AddAvx2(y, z, n, clamp, lo, hi);
#endif
  AddPlain(y + done, z + done, n - done, clamp, lo, hi);
}

}  // namespace ptq
