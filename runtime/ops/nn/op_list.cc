// Kernel list of the nn ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/nn/average_pool.h"
#include "runtime/ops/nn/batch_normalization.h"
#include "runtime/ops/nn/conv.h"
#include "runtime/ops/nn/conv_transpose.h"
#include "runtime/ops/nn/dropout.h"
#include "runtime/ops/nn/global_average_pool.h"
#include "runtime/ops/nn/global_max_pool.h"
#include "runtime/ops/nn/grid_sample.h"
#include "runtime/ops/nn/instance_normalization.h"
#include "runtime/ops/nn/layer_normalization.h"
#include "runtime/ops/nn/lrn.h"
#include "runtime/ops/nn/max_pool.h"
#include "runtime/ops/nn/max_unpool.h"
#include "runtime/ops/nn/mean_variance_normalization.h"
#include "runtime/ops/nn/non_max_suppression.h"
#include "runtime/ops/nn/pointwise_depthwise_conv.h"
#include "runtime/ops/nn/resize.h"
#include "runtime/ops/nn/roi_align.h"
#include "runtime/ops/nn/upsample.h"

namespace ptq {

void RegisterNnOps(OpRegistry& r) {
  r.Add({"", "LayerNormalization", 17, 21, MakeLayerNormalization});
  r.Add({"", "BatchNormalization", 1, 21, MakeBatchNormalization});
  r.Add({"", "InstanceNormalization", 1, 21, MakeInstanceNormalization});
  r.Add({"", "MeanVarianceNormalization", 9, 21, MakeMeanVarianceNormalization});
  r.Add({"", "LRN", 1, 21, MakeLRN});
  r.Add({"", "Resize", 10, 21, MakeResize});
  r.Add({"", "Upsample", 7, 9, MakeUpsample});
  r.Add({"", "Dropout", 1, 21, MakeDropout});
  r.Add({"", "Conv", 1, 21, MakeConv});
  // Conv with its Relu or Clip, as the session fuses them (runtime/float_fusion.h).
  r.Add({"ptq.fused", "FusedConv", 1, 1, MakeConv});
  // A channels-last 1x1 FusedConv with the depthwise one that reads it (runtime/pointwise_depthwise_fusion.cc).
  r.Add({"ptq.fused", "PointwiseDepthwiseConv", 1, 1, MakePointwiseDepthwiseConv});
  // LayerNorm written out op by op, as the session fuses it (runtime/float_fusion.h).
  r.Add({"ptq.fused", "LayerNormalization", 1, 1, MakeLayerNormalization});
  // GlobalAveragePool, MaxPool and BatchNormalization with channels_last (runtime/channels_last_layout.h).
  r.Add({"ptq.fused", "GlobalAveragePool", 1, 1, MakeGlobalAveragePool});
  r.Add({"ptq.fused", "MaxPool", 1, 1, MakeMaxPool});
  r.Add({"ptq.fused", "BatchNormalization", 1, 1, MakeBatchNormalization});
  r.Add({"", "ConvTranspose", 1, 21, MakeConvTranspose});
  r.Add({"", "MaxPool", 1, 21, MakeMaxPool});
  r.Add({"", "AveragePool", 1, 21, MakeAveragePool});
  r.Add({"", "GlobalAveragePool", 1, 21, MakeGlobalAveragePool});
  r.Add({"", "GlobalMaxPool", 1, 21, MakeGlobalMaxPool});
  r.Add({"", "MaxUnpool", 9, 21, MakeMaxUnpool});
  r.Add({"", "NonMaxSuppression", 10, 21, MakeNonMaxSuppression});
  r.Add({"", "RoiAlign", 10, 21, MakeRoiAlign});
  r.Add({"", "GridSample", 16, 21, MakeGridSample});
}

}  // namespace ptq
