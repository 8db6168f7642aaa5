// Branch-free float32 exp, sigmoid, tanh and erf that compilers vectorise in plain loops.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace ptq {

// c ? a : b as bit operations, so that loops stay branch-free (compilers do not if-convert a
// ternary whose arms may raise floating-point exceptions).
inline float VecSelect(bool c, float a, float b) {
  uint32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  const uint32_t mask = 0u - static_cast<uint32_t>(c);
  const uint32_t r = (ia & mask) | (ib & ~mask);
  float f;
  std::memcpy(&f, &r, 4);
  return f;
}

// |x| by clearing the sign bit.
inline float VecAbs(float x) {
  uint32_t i;
  std::memcpy(&i, &x, 4);
  i &= 0x7fffffffu;
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}

// e^x = 2^n * e^r with n = round(x / ln2), r = x - n*ln2 (|r| <= ln2/2, Cody-Waite split of ln2),
// e^r by a degree-7 polynomial (Cephes expf coefficients); 2^n is applied as two factors so that
// results from denormals up to overflow are formed without special cases. Within 2 ulp of
// std::exp; +Inf above ~88.72, 0 below ~-103.9, NaN in gives NaN out.
// The rounding of n, the reduction and the polynomial are fused multiply-adds (std::fma: one rounding
// each), which AVX2+FMA and AVX-512 loops compute lane by lane with the same bits, and which shorten the
// chain of dependent operations (SiLU 1.0 -> 0.7 ns a value on Zen 3). CPUs without FMA get the same bits
// from libm's fmaf, more slowly.
inline float VecExp(float x) {
  const float lo = -104.0f, hi = 89.0f;
  const float xc = VecSelect(hi < x, hi, VecSelect(lo < x, x, lo));  // NaN -> lo; restored at the end
  const float round_magic = 12582912.0f;               // 1.5 * 2^23: adding it rounds to integer
  const float n = std::fma(xc, 1.44269504088896341f, round_magic) - round_magic;
  const float r = std::fma(-n, -2.12194440e-4f, std::fma(-n, 0.693359375f, xc));
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = std::fma(p, r, 1.3981999507e-3f);
  p = std::fma(p, r, 8.3334519073e-3f);
  p = std::fma(p, r, 4.1665795894e-2f);
  p = std::fma(p, r, 1.6666665459e-1f);
  p = std::fma(p, r, 5.0000001201e-1f);
  p = std::fma(p, z, r) + 1.0f;
  const int32_t ni = static_cast<int32_t>(n);
  const int32_t n1 = ni >> 1;
  const int32_t n2 = ni - n1;
  const int32_t b1 = (n1 + 127) << 23, b2 = (n2 + 127) << 23;
  float s1, s2;
  std::memcpy(&s1, &b1, 4);
  std::memcpy(&s2, &b2, 4);
  const float y = p * s1 * s2;
  return VecSelect(x != x, x, y);
}

// sigmoid(x) = 1 / (1 + e^-x)
inline float VecSigmoid(float x) { return 1.0f / (1.0f + VecExp(-x)); }

// tanh(x) = x + x^3 P(x^2) for |x| < 0.625 (Cephes tanhf coefficients), else
// sign(x) * (1 - 2 / (e^(2|x|) + 1)).
inline float VecTanh(float x) {
  const float ax = VecAbs(x);
  const float s = x * x;
  float p = -5.70498872745e-3f;
  p = p * s + 2.06390887954e-2f;
  p = p * s - 5.37397155531e-2f;
  p = p * s + 1.33314422036e-1f;
  p = p * s - 3.33332819422e-1f;
  const float small = p * s * x + x;
  const float big = 1.0f - 2.0f / (VecExp(2.0f * ax) + 1.0f);
  const float signed_big = VecSelect(x < 0.0f, -big, big);
  return VecSelect(ax < 0.625f, small, signed_big);
}

// erf(x) = x P(x^2) for |x| < 0.9; else sign(x) * (1 - e^Q(min(|x|, 4))), Q ~ log(erfc) on
// [0.9, 4] (erf is 1 in float32 beyond 4); NaN in gives NaN out. P (degree 5) and Q (degree 8) are least-squares fits
// made for ptq; within 2e-7 relative of std::erf.
inline float VecErf(float x) {
  const float ax = VecAbs(x);
  const float u = x * x;
  float p = -6.144141662e-04f;
  p = p * u + 5.023298785e-03f;
  p = p * u - 2.678740956e-02f;
  p = p * u + 1.128240898e-01f;
  p = p * u - 3.761255443e-01f;
  p = p * u + 1.128379107e+00f;
  const float small = x * p;
  const float t = VecSelect(ax < 4.0f, ax, 4.0f);
  float q = 1.610222967e-06f;
  q = q * t - 4.551243910e-05f;
  q = q * t + 5.920900148e-04f;
  q = q * t - 4.736938048e-03f;
  q = q * t + 2.635508589e-02f;
  q = q * t - 1.099607423e-01f;
  q = q * t - 6.319562793e-01f;
  q = q * t - 1.130155087e+00f;
  q = q * t + 3.002603189e-04f;
  const float big = 1.0f - VecExp(q);
  const float signed_big = VecSelect(x < 0.0f, -big, big);
  const float y = VecSelect(ax < 0.9f, small, signed_big);
  return VecSelect(x != x, x, y);
}

}  // namespace ptq
