// QLinearConv (opset 10+): quantized convolution with requantization to uint8/int8.
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs: x, x_scale, x_zero_point, w, w_scale, w_zero_point, y_scale, y_zero_point, optional B.
// w_scale and w_zero_point are scalars or 1-D [M] (per output channel); B is int32 [M]; y has the
// type of y_zero_point. Attributes: auto_pad, dilations, group, kernel_shape, pads, strides.
std::unique_ptr<Kernel> MakeQLinearConv(const KernelInit& init);

}  // namespace ptq
