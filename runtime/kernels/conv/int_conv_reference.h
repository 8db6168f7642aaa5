// Plain reference integer convolution (uint8/int8 in, int32 out) shared by ConvInteger and
// QLinearConv, and the oracle that fast integer conv kernels are tested against bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/tensor.h"

namespace ptq {

// acc[b, m, o] = sum over c < C/group and kernel points k of
//     (x[b, g * C/group + c, o * stride - pad_begin + k * dilation] - x_zero_point)
//   * (w[m, c, k] - w_zero_point[m])
// with g = m / (M/group), o and k multi-indices over the spatial axes. Positions in the padding
// contribute 0 (as if x were x_zero_point there). Accumulation is int32 and wraps modulo 2^32 on
// overflow. Returns an int32 tensor of shape geometry.output_shape().
// REQUIRES: x is uint8 or int8 of shape [N, C, D1..Dn]; w is uint8 or int8 of shape
// [M, C/group, k1..kn]; geometry = ResolveConvGeometry(attrs, x.shape(), w.shape());
// w_zero_points has 1 entry (per tensor) or M entries (per output channel).
Tensor IntConvReference(const Tensor& x, int32_t x_zero_point, const Tensor& w,
                        const std::vector<int32_t>& w_zero_points, const ConvGeometry& geometry);

// The value of a zero-point input that must hold one value (a scalar or a 1-element tensor) of
// type `type`; 0 when `t` is null (an omitted optional input). Errors name the input.
int32_t ReadScalarZeroPoint(const Tensor* t, DataType type, const char* name);

// The values of a zero-point input that is a scalar or a 1-D tensor of 1 or `channels` values of
// type `type`: 1 value (per tensor) or `channels` values (per channel); {0} when `t` is null.
std::vector<int32_t> ReadChannelZeroPoints(const Tensor* t, DataType type, int64_t channels, const char* name);

}  // namespace ptq
