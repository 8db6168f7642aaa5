// Direct depthwise convolution (one input channel per group) over one or two spatial dimensions.
#pragma once

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// For one image, with M = g.out_channels output channels and C = g.in_channels = g.group inputs:
//   y[m, oh, ow] += sum_{kh, kw} w[m, kh, kw] * x[m / (M / C), oh * sh - ph + kh * dh, ow * sw - pw + kw * dw]
// over the taps inside x. y must hold the bias (or 0). 1-D windows are read as 2-D with height 1.
// REQUIRES: g.in_channels_per_group() == 1, g.window.rank() is 1 or 2; T is float or double.
template <class T>
void DepthwiseConv(const T* x, const T* w, const ConvGeometry& g, T* y);

}  // namespace ptq
