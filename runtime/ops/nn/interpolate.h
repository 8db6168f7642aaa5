// N-D nearest, linear and cubic interpolation shared by Resize and Upsample: coordinate
// transformation modes, nearest rounding modes and the resampling itself.
#pragma once

#include <string>
#include <vector>

#include "runtime/tensor.h"

namespace ptq {

enum class InterpMode { kNearest, kLinear, kCubic };

// How an output coordinate x (along an axis of input length in, output length out, scale s)
// maps to an input coordinate, computed in float32 as ONNX Runtime does:
enum class CoordMode {
  kHalfPixel,           // (x + 0.5) / s - 0.5
  kHalfPixelSymmetric,  // c * (1 - out / (s * in)) + (x + 0.5) / s - 0.5, c = in / 2
  kPytorchHalfPixel,    // out > 1 ? (x + 0.5) / s - 0.5 : 0
  kAlignCorners,        // out == 1 ? 0 : x * (in - 1) / (out - 1)
  kAsymmetric,          // x / s
  kTfHalfPixelForNn,    // (x + 0.5) / s
  kTfCropAndResize,     // out > 1 ? start * (in - 1) + x * (end - start) * (in - 1) / (out - 1)
                        //         : 0.5 * (start + end) * (in - 1); outside [0, in - 1] gives
                        // the extrapolation value
};

// Nearest-mode rounding of an input coordinate v to an index (clamped to [0, in - 1] afterwards):
enum class NearestMode {
  kRoundPreferFloor,  // round, halves down
  kRoundPreferCeil,   // round, halves up
  kFloor,
  kCeil,
  kSimple,  // Resize-10 and Upsample: ceil(v) when downsampling (s < 1), else trunc(v)
};

struct InterpSpec {
  InterpMode mode = InterpMode::kNearest;
  CoordMode coord = CoordMode::kHalfPixel;
  NearestMode nearest = NearestMode::kRoundPreferFloor;
  float extrapolation_value = 0.0f;
  float cubic_coeff_a = -0.75f;  // A of the cubic kernel (Resize attribute cubic_coeff_a)
  bool exclude_outside = false;  // cubic: taps outside the input get weight 0, the rest renormalised
};

// Parse the attribute values; throw an input error naming `op` and the attribute otherwise.
InterpMode ParseInterpMode(const std::string& mode, const std::string& op);
CoordMode ParseCoordMode(const std::string& mode, const std::string& op);
NearestMode ParseNearestMode(const std::string& mode, const std::string& op);

// Y of shape out_shape resampled from X. scales[a] is axis a's scale for the coordinate
// transformation; roi holds rank starts then rank ends (read by kTfCropAndResize only). An axis
// whose scale is 1 and whose length does not change is copied as is (except in kTfCropAndResize).
// Nearest works on every element type; linear and cubic (separable over every resized axis) on
// float types, computed in float32 (double for double). Cubic: with v the input coordinate,
// i = floor(v), s = v - i, taps i-1 .. i+2 (clamped into the input) weigh, with A = cubic_coeff_a,
//   w(d) = ((A + 2)|d| - (A + 3))|d|^2 + 1 for |d| <= 1, ((A|d| - 5A)|d| + 8A)|d| - 4A for 1 < |d| < 2
// at distances d = s + 1, s, 1 - s, 2 - s (ONNX's reference and ONNX Runtime). REQUIRES: scales.size() == rank, roi.size() ==
// 2 * rank, out_shape.size() == rank.
Tensor Interpolate(const Tensor& x, const Shape& out_shape, const std::vector<float>& scales,
                   const std::vector<float>& roi, const InterpSpec& spec, const std::string& op);

}  // namespace ptq
