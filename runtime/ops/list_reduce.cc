// Kernel list of the reduce family: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/arg_max.h"
#include "runtime/ops/arg_min.h"
#include "runtime/ops/batch_normalization.h"
#include "runtime/ops/cum_sum.h"
#include "runtime/ops/hardmax.h"
#include "runtime/ops/instance_normalization.h"
#include "runtime/ops/layer_normalization.h"
#include "runtime/ops/log_softmax.h"
#include "runtime/ops/lrn.h"
#include "runtime/ops/mean_variance_normalization.h"
#include "runtime/ops/reduce_l1.h"
#include "runtime/ops/reduce_l2.h"
#include "runtime/ops/reduce_log_sum.h"
#include "runtime/ops/reduce_log_sum_exp.h"
#include "runtime/ops/reduce_max.h"
#include "runtime/ops/reduce_mean.h"
#include "runtime/ops/reduce_min.h"
#include "runtime/ops/reduce_prod.h"
#include "runtime/ops/reduce_sum.h"
#include "runtime/ops/reduce_sum_square.h"
#include "runtime/ops/resize.h"
#include "runtime/ops/softmax.h"
#include "runtime/ops/top_k.h"
#include "runtime/ops/upsample.h"

namespace ptq {

void RegisterReduceOps(OpRegistry& r) {
  r.Add({"", "Softmax", 1, 21, MakeSoftmax});
  r.Add({"", "LogSoftmax", 1, 21, MakeLogSoftmax});
  r.Add({"", "Hardmax", 1, 21, MakeHardmax});
  r.Add({"", "LayerNormalization", 17, 21, MakeLayerNormalization});
  r.Add({"", "BatchNormalization", 1, 21, MakeBatchNormalization});
  r.Add({"", "InstanceNormalization", 1, 21, MakeInstanceNormalization});
  r.Add({"", "MeanVarianceNormalization", 9, 21, MakeMeanVarianceNormalization});
  r.Add({"", "LRN", 1, 21, MakeLRN});
  r.Add({"", "ReduceSum", 1, 21, MakeReduceSum});
  r.Add({"", "ReduceMean", 1, 21, MakeReduceMean});
  r.Add({"", "ReduceMax", 1, 21, MakeReduceMax});
  r.Add({"", "ReduceMin", 1, 21, MakeReduceMin});
  r.Add({"", "ReduceProd", 1, 21, MakeReduceProd});
  r.Add({"", "ReduceL1", 1, 21, MakeReduceL1});
  r.Add({"", "ReduceL2", 1, 21, MakeReduceL2});
  r.Add({"", "ReduceSumSquare", 1, 21, MakeReduceSumSquare});
  r.Add({"", "ReduceLogSum", 1, 21, MakeReduceLogSum});
  r.Add({"", "ReduceLogSumExp", 1, 21, MakeReduceLogSumExp});
  r.Add({"", "ArgMax", 1, 21, MakeArgMax});
  r.Add({"", "ArgMin", 1, 21, MakeArgMin});
  r.Add({"", "TopK", 1, 21, MakeTopK});
  r.Add({"", "CumSum", 11, 21, MakeCumSum});
  r.Add({"", "Resize", 10, 21, MakeResize});
  r.Add({"", "Upsample", 7, 9, MakeUpsample});
}

}  // namespace ptq
