// The float channels-last convolution without an im2row matrix, for depths of one GEMM K block (grouped
// convolutions such as RegNet's): the GEMM's tiles read each output position's taps from the image through
// pointers.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

namespace ptq {

// Whether ConvNhwcDirectF32 computes this convolution: channels last, 2 spatial dims, at least 8 input channels
// per group, or fewer in one group with windows not dilated horizontally (3-channel stems: a tap is then a kernel
// row of KW * C values, since taps of 3 channels leave too little work per tap), K = cg * KH * KW no more than one
// GEMM K block (F32GemmKBlock(K) == K, K <= 256), a multiple of 8 output channels per group; and an AVX2+FMA CPU.
bool ConvNhwcDirectApplies(const ConvGeometry& g);

// y [N, OH, OW, M] = the convolution of x [N, H, W, C] by the weights packed per group (packed[grp] is
// PackF32B of the group's [K, M / group] matrix in Im2RowNhwc's order: tap-major, then channel), with epi
// (col_bias: all M biases; sum: a residual of y's shape; clamp) applied as GemmF32Avx2Packed does. Every
// output has the bits GemmF32Avx2Packed gives it from Im2RowNhwc's row: the K block is the whole K, summed in
// the same order, and stored through the same epilogue. Output positions are shared between threads when the
// work is large (any thread count gives the same bits). When set, finish(p, n) is called on the n outputs at p
// of each block of positions once written (all their channels): a further activation, while in cache.
// REQUIRES: ConvNhwcDirectApplies(g).
void ConvNhwcDirectF32(const float* x, const std::vector<PackedF32B>& packed, const ConvGeometry& g,
                       const GemmEpilogue<float>& epi, float* y, void (*finish)(float*, int64_t) = nullptr);

}  // namespace ptq
