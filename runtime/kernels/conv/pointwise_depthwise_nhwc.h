// A float32 1x1 convolution whose output only a depthwise convolution reads, both channels last, computed a
// few rows at a time into a ring of rows that the depthwise convolution reads while they are in cache: the
// expanded tensor between them (MobileNet's and EfficientNet's widest) is never written whole.
#pragma once

#include <cstdint>

#include "runtime/kernels/conv/depthwise_nhwc.h"
#include "runtime/kernels/gemm_f32/gemm_f32_avx2.h"

namespace ptq {

// The 1x1 convolution: e = x * w + bias per position, then the clamp (epilogue), then finish (a further
// activation over each block of rows, or nullptr), as the channels-last FusedConv computes a pointwise window.
struct PointwiseStage {
  const PackedF32B* w = nullptr;  // [C, E] packed: C input channels, E output channels
  GemmEpilogue<float> epilogue;   // col_bias and clamp only
  void (*finish)(float*, int64_t) = nullptr;
};

// y [N, OH, OW, E] = the depthwise convolution `depthwise` (geometry g, input [N, H, W, E]) of the pointwise
// convolution of x [N, H, W, C]: the same bits as the two run one after the other (each GEMM row and each
// depthwise output is computed by the same operations, whatever rows are computed with it). Images, or
// blocks of output rows when there are fewer images than threads, are shared between threads; each block
// computes the expanded rows its window reaches (the rows where two blocks meet twice).
// REQUIRES: GetCpuFeatures().avx2_fma; IsDepthwise(g), g.channels_last, 2 spatial dimensions,
// g.in_channels == g.out_channels == pointwise.w->N.
void PointwiseDepthwiseNhwcF32(const float* x, int64_t C, const PointwiseStage& pointwise,
                               const DepthwiseNhwcRows<float>& depthwise, const ConvGeometry& g, float* y);

}  // namespace ptq
