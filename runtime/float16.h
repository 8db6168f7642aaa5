// IEEE half and bfloat16 <-> float32 conversions (round to nearest even), for float16 tensors stored as uint16_t.
#pragma once

#include <cstdint>
#include <cstring>

namespace ptq {

inline float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1fu;
  uint32_t mant = h & 0x3ffu;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal half: normalise
      exp = 127 - 15 + 1;
      while ((mant & 0x400u) == 0) {
        mant <<= 1;
        --exp;
      }
      mant &= 0x3ffu;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToHalf(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  const uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  const uint32_t absx = x & 0x7fffffffu;
  if (absx >= 0x7f800000u) {  // Inf or NaN
    return sign | 0x7c00u | (absx > 0x7f800000u ? 0x200u : 0u);
  }
  if (absx >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: overflow to Inf
  if (absx < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    if (absx < 0x33000000u) return sign;  // < 2^-25 rounds to 0
    const uint32_t e = absx >> 23;
    const uint32_t m = (absx & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126 - e;  // 14 - (e - 127) + 13 - 1 ... bits to drop
    const uint32_t drop = shift;
    uint32_t half_m = m >> drop;
    const uint32_t rem = m & ((1u << drop) - 1);
    const uint32_t halfway = 1u << (drop - 1);
    if (rem > halfway || (rem == halfway && (half_m & 1u))) ++half_m;
    return sign | static_cast<uint16_t>(half_m);
  }
  uint32_t r = absx - 0x38000000u;  // rebias exponent 127 -> 15
  const uint32_t rem = r & 0x1fffu;
  r >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
  return sign | static_cast<uint16_t>(r);
}

inline float Bfloat16ToFloat(uint16_t b) {
  const uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t FloatToBfloat16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((x >> 16) | 0x40u);  // quiet NaN
  const uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  return static_cast<uint16_t>((x + rounding) >> 16);
}

}  // namespace ptq
