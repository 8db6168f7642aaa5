// All quantization arithmetic of ptq: choosing scale and zero point, quantize, dequantize,
// requantize, int32 bias. calibrate/, rewrite/ and the runtime's kernels all call these.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "runtime/dtype.h"

namespace ptq {

// The scale used when a range has zero width (rmin == rmax == 0 after widening to contain 0):
// every value then quantizes exactly to the zero point, and any scale would do; 1.0 keeps it finite.
constexpr float kZeroWidthScale = 1.0f;
// Smallest scale ever chosen: the smallest normal float. Smaller (subnormal) scales make
// x / scale overflow to Inf for ordinary x.
constexpr float kMinScale = std::numeric_limits<float>::min();

struct QuantParams {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// Clamps v to [qmin, qmax]. NaN maps to qmin (int8 -128, uint8 0), as ONNX Runtime does.
inline int32_t SaturateFloat(float v, int32_t qmin, int32_t qmax) {
  if (std::isnan(v)) return qmin;
  if (v <= static_cast<float>(qmin)) return qmin;
  if (v >= static_cast<float>(qmax)) return qmax;
  return static_cast<int32_t>(v);
}

// Round half to even in the default rounding mode (FE_TONEAREST).
inline float RoundHalfEven(float v) { return std::nearbyint(v); }

// y = saturate(round_half_even(x / scale) + zero_point).
// Divides (never multiplies by 1/scale): this matches ONNX Runtime bit for bit. +-Inf saturate;
// NaN gives qmin. The zero point is added in float, exact while |x / scale| < 2^24 (beyond that the
// result saturates anyway for every type of 16 bits or less).
inline int32_t QuantizeValue(float x, float scale, int32_t zero_point, int32_t qmin, int32_t qmax) {
  const float v = RoundHalfEven(x / scale) + static_cast<float>(zero_point);
  return SaturateFloat(v, qmin, qmax);
}

// x = (q - zero_point) * scale, in float32.
inline float DequantizeValue(int32_t q, float scale, int32_t zero_point) {
  return static_cast<float>(q - zero_point) * scale;
}

// Requantization multiplier of an integer matmul/conv: float(a_scale * b_scale) / y_scale, all float32.
inline float RequantMultiplier(float a_scale, float b_scale, float y_scale) {
  const float ab = a_scale * b_scale;
  return ab / y_scale;
}

// y = saturate(round_half_even(float(acc) * multiplier) + y_zero_point): round first, then add
// the zero point, then clamp. This is what ONNX Runtime's CPU kernels compute.
inline int32_t RequantizeValue(int32_t acc, float multiplier, int32_t y_zero_point, int32_t qmin, int32_t qmax) {
  const float r = RoundHalfEven(static_cast<float>(acc) * multiplier);
  if (std::isnan(r)) return qmin;
  // r is integral; clamp in float before converting so huge values cannot overflow int32.
  const float lo = static_cast<float>(qmin - y_zero_point);
  const float hi = static_cast<float>(qmax - y_zero_point);
  if (r <= lo) return qmin;
  if (r >= hi) return qmax;
  return static_cast<int32_t>(r) + y_zero_point;
}

// int32 bias of a quantized MatMul/Gemm/Conv: round_half_even(bias / (input_scale * weight_scale)),
// saturated to int32. The product input_scale * weight_scale is taken in float32.
inline int32_t QuantizeBias(float bias, float input_scale, float weight_scale) {
  const float s = input_scale * weight_scale;
  const double v = std::nearbyint(static_cast<double>(bias) / static_cast<double>(s));
  if (std::isnan(v)) return 0;
  if (v <= static_cast<double>(std::numeric_limits<int32_t>::min())) return std::numeric_limits<int32_t>::min();
  if (v >= static_cast<double>(std::numeric_limits<int32_t>::max())) return std::numeric_limits<int32_t>::max();
  return static_cast<int32_t>(v);
}

// The largest |int32 bias| a quantized node gets: 2^30, so that bias + sum of products keeps 2^30 of
// int32 headroom for the products. QuantizeBias itself saturates at int32's limits; WeightScaleForBias
// chooses weight scales so that it never has to.
constexpr int32_t kMaxQuantizedBias = int32_t{1} << 30;

// The smallest weight scale w >= weight_scale with |round(bias / (input_scale * w))| <= kMaxQuantizedBias
// (the products taken in float32 as QuantizeBias takes them). weight_scale itself when the bias fits or
// is not finite. A larger weight scale loses weight precision in that channel; a saturated bias would
// lose the bias itself.
inline float WeightScaleForBias(float bias, float input_scale, float weight_scale) {
  auto fits = [&](float w) {
    const double v = std::nearbyint(static_cast<double>(bias) / static_cast<double>(input_scale * w));
    return std::fabs(v) <= static_cast<double>(kMaxQuantizedBias);
  };
  if (!std::isfinite(bias) || fits(weight_scale)) return weight_scale;
  const double need = std::fabs(static_cast<double>(bias)) / (static_cast<double>(input_scale) * kMaxQuantizedBias);
  float w = std::max(weight_scale, static_cast<float>(std::min(need, static_cast<double>(std::numeric_limits<float>::max()))));
  for (int step = 0; step < 64 && !fits(w) && std::isfinite(w); ++step) w *= 1.0f + 0x1p-20f;  // float rounding only
  return w;
}

// Scale and zero point for the real range [rmin, rmax] in an integer type of range [qmin, qmax].
//  - The range is widened to contain 0, so that 0.0 is exactly representable.
//  - asymmetric: scale = (rmax - rmin) / (qmax - qmin); zero_point = round(qmin - rmin / scale), clamped.
//  - symmetric: signed types use [-qmax, qmax] (int8: [-127, 127]) and zero point 0; unsigned types
//    use zero point (qmin + qmax + 1) / 2 (uint8: 128); scale = max(|rmin|, |rmax|) / ((qmax - qmin) / 2)
//    (int8: /127, uint8: /127.5).
//  - a range of zero width gets kZeroWidthScale; scales are at least kMinScale and finite.
// Non-finite rmin/rmax are clamped to +-FLT_MAX.
inline QuantParams ChooseQuantParams(float rmin, float rmax, int32_t qmin, int32_t qmax, bool symmetric) {
  const float kBig = std::numeric_limits<float>::max();
  auto finite = [kBig](float v) { return std::isnan(v) ? 0.0f : std::min(std::max(v, -kBig), kBig); };
  double lo = std::min(0.0f, finite(rmin));
  double hi = std::max(0.0f, finite(rmax));
  if (lo > hi) std::swap(lo, hi);
  QuantParams p;
  double scale;
  if (symmetric) {
    const double absmax = std::max(-lo, hi);
    if (qmin < 0) {
      scale = absmax / static_cast<double>(qmax);
      p.zero_point = 0;
    } else {
      scale = absmax / (static_cast<double>(qmax - qmin) / 2.0);
      p.zero_point = (qmin + qmax + 1) / 2;
    }
  } else {
    scale = (hi - lo) / static_cast<double>(qmax - qmin);
  }
  if (scale == 0.0) {
    p.scale = kZeroWidthScale;
  } else {
    p.scale = static_cast<float>(std::min(std::max(scale, static_cast<double>(kMinScale)), static_cast<double>(kBig)));
  }
  if (!symmetric) {
    const double zp = std::nearbyint(static_cast<double>(qmin) - lo / static_cast<double>(p.scale));
    p.zero_point = static_cast<int32_t>(std::min(std::max(zp, static_cast<double>(qmin)), static_cast<double>(qmax)));
  }
  return p;
}

// The integer range a tensor is quantized into, one fact for every caller: the range methods are
// told levels(), ChooseQuantParams uses [qmin, qmax]. With reduce_range the type loses one bit of
// range (int8 [-64, 63], uint8 [0, 127]), for kernels whose int16 pair sums could otherwise saturate.
struct QuantRange {
  int32_t qmin = 0;
  int32_t qmax = 255;
  int levels() const { return qmax - qmin + 1; }
};

inline QuantRange QuantRangeOf(DataType type, bool reduce_range = false) {
  QuantRange r{QuantMin(type), QuantMax(type)};
  if (reduce_range) {
    r.qmin /= 2;
    r.qmax /= 2;
  }
  return r;
}

// The same, for a quantized element type (int4, uint4, int8, uint8, int16, uint16), in its full range
// or with reduce_range (see QuantRangeOf).
inline QuantParams ChooseQuantParams(float rmin, float rmax, DataType type, bool symmetric, bool reduce_range = false) {
  const QuantRange r = QuantRangeOf(type, reduce_range);
  return ChooseQuantParams(rmin, rmax, r.qmin, r.qmax, symmetric);
}

}  // namespace ptq
