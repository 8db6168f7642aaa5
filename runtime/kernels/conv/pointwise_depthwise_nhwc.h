// A float32 1x1 convolution whose output only a depthwise convolution reads, both channels last, computed a
// few rows at a time into a ring of rows that the depthwise convolution reads while they are in cache: the
// expanded tensor between them (MobileNet's and EfficientNet's widest) is never written whole.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/kernels/conv/depthwise_nhwc.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"
#include "runtime/kernels/row_finish.h"

namespace ptq {

// The 1x1 convolution: e = x * w + bias per position, then the clamp (epilogue), then finish (a further
// activation over each block of rows, or nullptr), as the channels-last FusedConv computes a pointwise window.
struct PointwiseStage {
  const PackedF32B* w = nullptr;  // [C, E] packed: C input channels, E output channels
  GemmEpilogue<float> epilogue;   // col_bias and clamp only
  const FloatRowFinish* finish = nullptr;
};

// The depthwise convolution: DepthwiseNhwcRows' arguments.
struct DepthwiseStage {
  const float* w = nullptr;     // [E, 1, KH, KW]
  const float* bias = nullptr;  // [E] or nullptr
  GemmEpilogue<float> clamp;
  const FloatRowFinish* finish_row = nullptr;
};

// The widths of the blocks of expanded channels that threads share when an image is too short to be cut into
// blocks of rows (fewer images than threads and fewer than kChannelSplitRows output rows): multiples of 16
// channels (the GEMM's panels), at least 32, the last block narrower; empty when the rows are cut instead.
// g and C as PointwiseDepthwiseNhwcF32 takes them; the threads are OpenMP's (omp_get_max_threads).
constexpr int64_t kChannelSplitRows = 16;
std::vector<int64_t> PointwiseDepthwiseChannelBlocks(const ConvGeometry& g, int64_t C);

// y [N, OH, OW, E] = the depthwise convolution `depthwise` (geometry g, input [N, H, W, E]) of the pointwise
// convolution of x [N, H, W, C]: the same bits as the two run one after the other (each GEMM row and each
// depthwise output is computed by the same operations, whatever rows and channels are computed with it).
// Images, or with fewer images than threads blocks of output rows, are shared between threads; each block
// computes the expanded rows its window reaches (the rows where two blocks meet twice). Short images (the
// last stages of MobileNet and EfficientNet, 14 x 14 and 7 x 7) are cut instead into blocks of the channels
// `blocks` gives (PointwiseDepthwiseChannelBlocks), each with W1's columns of the block packed alone in
// blocks_w[i]: no expanded row is computed twice.
// REQUIRES: GetCpuFeatures().avx2_fma; IsDepthwise(g), g.channels_last, 2 spatial dimensions,
// g.in_channels == g.out_channels == pointwise.w->N; blocks_w[i] packs the blocks' columns when blocks is not
// empty.
void PointwiseDepthwiseNhwcF32(const float* x, int64_t C, const PointwiseStage& pointwise,
                               const DepthwiseStage& depthwise, const ConvGeometry& g,
                               const std::vector<int64_t>& blocks, const std::vector<PackedF32B>& blocks_w, float* y);

}  // namespace ptq
