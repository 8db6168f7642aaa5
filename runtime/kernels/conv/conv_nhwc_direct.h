// The float channels-last convolution without an im2row matrix: the GEMM's tiles read each output position's taps
// from the image through pointers, K block by K block of the packed weights.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/kernels/row_finish.h"

namespace ptq {

// Whether ConvNhwcDirectF32 computes this convolution: channels last, 2 spatial dims, a multiple of 8 output
// channels per group, an AVX2+FMA CPU, and either at least 8 input channels per group with windows of at most 32
// taps (5 x 5) and K = cg * KH * KW no more than one GEMM K block (256), or more for windows of stride 1 and more
// than one tap with at most 16 M weights a group; or fewer channels in one group with windows not dilated
// horizontally and K within one K block (3-channel stems: a tap is then a kernel row of KW * C values, since taps
// of 3 channels leave too little work per tap).
bool ConvNhwcDirectApplies(const ConvGeometry& g);

// y [N, OH, OW, M] = the convolution of x [N, H, W, C] by the weights packed per group (packed[grp] is
// PackF32B of the group's [K, M / group] matrix in Im2RowNhwc's order: tap-major, then channel), with epi
// (col_bias: all M biases; sum: a residual of y's shape; clamp) applied as GemmF32Avx2Packed does. Every
// output has the bits GemmF32Avx2Packed gives it from Im2RowNhwc's row: the same K blocks, each summed in the
// same order and stored through the same epilogue. Output positions (and, for weights over 256 KiB, output
// channels) are shared between threads when the work is large (any thread count gives the same bits). When set,
// finish(p, n) is called on the n outputs at p of each block of positions once written (all their channels): a
// further activation, while in cache. finite_weights (no infinity or NaN among them) lets the tiles skip the taps
// outside the image, whose products would add zeros (the same bits); the padding of a 3 x 3 window at 14 x 14 is
// 9% of its products, at 7 x 7 18%, and more for dilated windows (only taps outside at every position of a tile
// are skipped: the top and bottom rows').
// REQUIRES: ConvNhwcDirectApplies(g).
void ConvNhwcDirectF32(const float* x, const std::vector<PackedF32B>& packed, const ConvGeometry& g,
                       const GemmEpilogue<float>& epi, float* y, const FloatRowFinish* finish = nullptr,
                       bool finite_weights = false);

}  // namespace ptq
