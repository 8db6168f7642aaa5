// The float channels-last grouped convolution of 16 input channels a group (RegNet's): input rows copied into
// planes of one group's 16 channels a pixel, one plane per phase of the stride, where every tap of 12 consecutive
// output positions lies at fixed offsets from one pointer.
#pragma once

#include <vector>

#include "runtime/kernels/conv/conv_geometry.h"
#include "runtime/kernels/gemm_f32/gemm_epilogue.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/kernels/row_finish.h"

namespace ptq {

// Whether GroupedConvPlanesF32 computes this convolution: channels last, 2 spatial dims, more than one group,
// 16 input channels and a multiple of 16 output channels per group, at most 16 taps (K = 16 taps within one
// K block of the GEMM), and an AVX-512F CPU.
bool GroupedConvPlanesApplies(const ConvGeometry& g);

// ConvNhwcDirectF32's contract (y [N, OH, OW, M] from x [N, H, W, C], packed[grp] PackF32B of the group's [K, M /
// group] matrix in Im2RowNhwc's order; epi, finish), with the same bits: every output is the GEMM's sum over
// Im2RowNhwc's row in order k = tap * 16 + c, zeros outside the image included, then epi. Each block of output
// rows copies the input rows it reads, group by group, into planes [phase][plane row][plane column][16] (phase: the
// row and column of the window's start modulo the stride; zeros for the padding), so that output position (i, j) of
// the block (Wv columns a plane row: OW and the window's reach) reads tap (kh, kw) at plane index i * Wv + j + a
// fixed offset of the tap. A tile of up to 16 positions of one output row then reads its inputs (16 x 144 for a 3 x
// 3 window) at immediate offsets from one pointer a tap, where ConvNhwcDirectF32 loads a pointer a position and tap.
// REQUIRES: GroupedConvPlanesApplies(g).
void GroupedConvPlanesF32(const float* x, const std::vector<PackedF32B>& packed, const ConvGeometry& g,
                          const GemmEpilogue<float>& epi, float* y, const FloatRowFinish* finish = nullptr);

}  // namespace ptq
