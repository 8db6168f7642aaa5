// Which scale / zero-point element applies to each element of x in QuantizeLinear and
// DequantizeLinear: per-tensor, per-axis or blocked granularity, as the ONNX spec defines them.
#pragma once

#include <cstdint>

#include "runtime/tensor.h"

namespace ptq {

// x viewed as [outer, axis_dim, inner]. Element (o, a, i) uses scale / zero-point element
//   o * outer_stride + (a / block) * axis_stride + i * inner_stride.
// Per-tensor: all strides 0. Per-axis: axis_stride 1, block 1. Blocked: the scale is row-major
// with shape x.shape but ceil(axis_dim / block) on the axis.
struct QuantGranularity {
  int64_t outer = 1;
  int64_t axis_dim = 1;
  int64_t inner = 1;
  int64_t block = 1;
  int64_t outer_stride = 0;
  int64_t axis_stride = 0;
  int64_t inner_stride = 0;

  // Calls f(x_index, param_index) for every element of x, in row-major order.
  template <class F>
  void ForEach(F f) const {
    int64_t x_index = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t a = 0; a < axis_dim; ++a) {
        const int64_t base = o * outer_stride + (a / block) * axis_stride;
        for (int64_t i = 0; i < inner; ++i) f(x_index++, base + i * inner_stride);
      }
    }
  }
};

// Names of the op's inputs, for error messages ("y_scale", "y_zero_point" / "x_scale", ...).
struct QuantParamNames {
  const char* scale;
  const char* zero_point;
};

// Resolves the granularity from the scale's shape and the attributes:
//  - block_size > 0: blocked. The scale has x's rank and x's dims except ceil(D / block_size)
//    on `axis` (D = x_shape[axis]).
//  - else a scalar or 1-element 1-D scale: per-tensor (axis is not looked at).
//  - else a 1-D scale of length x_shape[axis]: per-axis; only when per_axis_allowed (opset >= 13).
// `axis` may be negative. The zero point, when given, must have the scale's shape (per-tensor:
// a scalar and a 1-element 1-D tensor are interchangeable).
// Throws an input error naming the input or attribute that does not fit.
QuantGranularity ResolveQuantGranularity(const Shape& x_shape, const Shape& scale_shape,
                                         const Shape* zero_point_shape, int64_t axis, int64_t block_size,
                                         bool per_axis_allowed, const QuantParamNames& names);

}  // namespace ptq
