// ConvTransposeTiling: a 2-D ConvTranspose whose kernel equals its stride (each output takes one product, the
// upsampling layers of segmentation and text-detection necks) as row blocks of GEMM stored straight into Y.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/conv_geometry.h"

namespace ptq {

// True when `win` (a ConvTranspose's, ResolveTransposeWindow) is 2-D with kernel == stride, dilation 1, no padding
// and an output of input * stride: the kernel's placements tile the output.
bool ConvTransposeTiles(const SlidingWindow& win);

// y [batch, group * mg, H * s0, W * s1] from x [batch, group * cg, H, W], w [group * cg, mg, s0, s1] and bias
// (group * mg values, or nullptr for zeros):
//   y[n, g * mg + m, i * s0 + a, j * s1 + b] = bias[g * mg + m] + sum_c x[n, g * cg + c, i, j] * w[g * cg + c, m, a, b]
// the sum by GemmF32Avx2 (its bits whatever the block of columns), then added to the bias: the bits of ConvTranspose's
// GEMM and col2im onto the bias. Blocks of input rows (their products in L2) are shared between threads.
// REQUIRES: GetCpuFeatures().avx2_fma; ConvTransposeTiles(win); batch, group, cg, mg > 0.
void ConvTransposeTiling(const float* x, const float* w, const float* bias, int64_t batch, int64_t group, int64_t cg,
                         int64_t mg, const SlidingWindow& win, float* y);

}  // namespace ptq
