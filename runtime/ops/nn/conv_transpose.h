// ConvTranspose: the gradient of Conv with respect to its input (a "deconvolution").
#pragma once

#include <memory>

#include "runtime/kernel.h"

namespace ptq {

// Inputs X [N, C, D1..Dn], W [C, M / group, k1..kn], optional B [M]; float32, float64, float16 or
// bfloat16 (computed in float32). Attributes auto_pad, dilations, group, kernel_shape,
// output_padding, output_shape, pads, strides; the output sizes and pads follow
// ResolveTransposeWindow (conv_geometry.h). Opsets 1-21.
std::unique_ptr<Kernel> MakeConvTranspose(const KernelInit& init);

}  // namespace ptq
