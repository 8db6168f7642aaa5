// Kernel list of the reduction ops: one line per op.
#include "runtime/op_registry.h"
#include "runtime/ops/reduction/arg_max.h"
#include "runtime/ops/reduction/arg_min.h"
#include "runtime/ops/reduction/reduce_l1.h"
#include "runtime/ops/reduction/reduce_l2.h"
#include "runtime/ops/reduction/reduce_log_sum.h"
#include "runtime/ops/reduction/reduce_log_sum_exp.h"
#include "runtime/ops/reduction/reduce_max.h"
#include "runtime/ops/reduction/reduce_mean.h"
#include "runtime/ops/reduction/reduce_min.h"
#include "runtime/ops/reduction/reduce_prod.h"
#include "runtime/ops/reduction/reduce_sum.h"
#include "runtime/ops/reduction/reduce_sum_square.h"

namespace ptq {

void RegisterReductionOps(OpRegistry& r) {
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
}

}  // namespace ptq
